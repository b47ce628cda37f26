"""The learner's process (the learner trust level, ``learner.py``): load the
file, call its function on each case's inputs, write the tensors back.
Nothing is judged here; the practice grader judges.

``python -m scripts.qualify.learner_child LISTING`` (started by
``learner.run`` under ``TRITON_INTERPRET=1``): each line of LISTING is a
learner's file and a job folder, run in turn so torch and Triton load once,
each from the learner's file's own folder. A job folder holds ``plan.json``
and one ``in<i>.safetensors`` per case; for each case the child writes the
case's name to ``LISTING.progress`` before calling, then
``out<i>.safetensors`` (the output with its guard bytes, the inputs'
storages after the call, a second output for a determinism check) and
``out<i>.json`` (ok with what the launches did, or the exception in one line
with the learner's line); ``printed.txt`` (what the file printed, bounded);
``done`` at the end, or ``fatal.json`` if the file would not import or lacks
the function.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from scripts.qualify.learner_watch import watched
from scripts.qualify.races import watching
from snippets.lib.accesses import describe, reads_into_guards, record

DTYPES = {"float32": torch.float32, "int32": torch.int32, "uint8": torch.uint8}
GUARD_FILL = {torch.float32: float("nan"), torch.int32: 2**30, torch.uint8: 0xA5}
#: What the learner's prints may fill, per file; the rest is counted.
PRINT_LIMIT = 4000


def guarded(base: torch.Tensor, guard: int) -> torch.Tensor:
    """A copy of base inside a buffer with `guard` elements either side, so
    a lane read past either end reads a value no right answer contains."""
    flat = torch.full(
        (base.numel() + 2 * guard,), GUARD_FILL[base.dtype], dtype=base.dtype
    )
    flat[guard : guard + base.numel()] = base.reshape(-1)
    return flat[guard : guard + base.numel()].view(base.shape)


def view_of(base: torch.Tensor, view: str) -> torch.Tensor:
    if view == "transposed":
        return base.t()
    if view == "step2":
        return base[..., ::2]
    return base


def fresh_out(shape, dtype, sentinel: int, guard: int):
    """(out, whole buffer): out sits between `guard` sentinel elements."""
    numel = 1
    for extent in shape:
        numel *= extent
    buffer = torch.empty(numel + 2 * guard, dtype=dtype)
    buffer.view(torch.uint8).fill_(sentinel)
    return buffer[guard : guard + numel].view(shape), buffer


class Bounded:
    """A text stream keeping the first `limit` characters, counting the rest."""

    def __init__(self, limit: int = PRINT_LIMIT):
        self.kept, self.limit, self.dropped = [], limit, 0

    def write(self, text: str) -> int:
        room = self.limit - sum(len(t) for t in self.kept)
        self.kept.append(text[: max(room, 0)])
        self.dropped += max(len(text) - max(room, 0), 0)
        return len(text)

    def flush(self) -> None:
        pass

    def save(self, path: Path) -> None:
        path.write_text(
            json.dumps({"text": "".join(self.kept), "dropped": self.dropped})
        )


def where_raised(exc: BaseException, path: str) -> tuple[BaseException, str]:
    """The innermost cause (the interpreter wraps a kernel's own exception)
    and ``line N: <source>`` for the deepest frame in the learner's file."""
    chain = [exc]
    while chain[-1].__cause__ is not None and len(chain) < 8:
        chain.append(chain[-1].__cause__)
    inner = chain[-1]
    line = ""
    for link in chain:
        for frame in traceback.extract_tb(link.__traceback__):
            if os.path.realpath(frame.filename) == path:
                line = f"line {frame.lineno}: {(frame.line or '').strip()[:120]}"
    return inner, line


def one_line(exc: BaseException, path: str) -> dict:
    """An exception as the parent reports it: type, message, where."""
    if isinstance(exc, SystemExit):
        return {"status": "exit", "error": f"sys.exit({exc.code!r})", "line": ""}
    inner, line = where_raised(exc, path)
    message = " ".join(str(inner).split())[:300]
    return {
        "status": "error",
        "error": f"{type(inner).__name__}: {message}",
        "line": line,
    }


def load_function(number: int, path: str, name: str):
    spec = importlib.util.spec_from_file_location(f"learner_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def arguments(case: dict, bases: dict, plan: dict) -> tuple[list, dict]:
    """The learner's inputs, each inside its guards (or a 2 GiB window)."""
    args, storages = [], {}
    for name, view, fill, _ in case["inputs"]:
        if fill == "window":  # a 2 GiB tensor, untouched but for its window
            start = case["params"]["start"]
            huge = torch.empty(plan["huge"], dtype=torch.uint8)
            huge[start : start + bases[name].numel()] = bases[name]
            args.append(huge)
            continue
        storage = guarded(bases[name], plan["guard"])
        storages[name] = storage
        args.append(view_of(storage, view))
    return args, storages


def run_case(function, index: int, case: dict, job: Path, plan: dict, path: str):
    bases = load_file(str(job / f"in{index}.safetensors"))
    args, storages = arguments(case, bases, plan)
    sentinel, guard = plan["sentinel"], plan["guard"]
    dtype = DTYPES[case["out_dtype"]]
    out, buffer = fresh_out(case["out_shape"], dtype, sentinel, guard)
    spans = _guard_spans(storages, guard)
    with contextlib.ExitStack() as stack:
        read_past = stack.enter_context(reads_into_guards(spans))
        seen = stack.enter_context(watched(buffer, storages, path))
        races = stack.enter_context(watching())
        if plan.get("accesses") and index == 0:  # the first case, drawn
            drawn = stack.enter_context(record({**storages, "out": out}))
        function(*args, out, **case["params"])
    if plan.get("accesses") and index == 0:
        (job / "accesses.txt").write_text(describe(drawn))
    tensors = {"out": out.clone(), "out_guard": _guard_bytes(buffer, guard)}
    if plan["again"]:
        again, _ = fresh_out(case["out_shape"], dtype, sentinel, guard)
        function(*args, again, **case["params"])
        tensors["again"] = again.clone()
    tensors.update({f"in:{n}": s.clone() for n, s in storages.items()})
    save_file(tensors, str(job / f"out{index}.safetensors"))
    race = race_named(races.found, {**storages, "out": out})
    return {"status": "ok", "read_past": sorted(read_past), "race": race,
            **seen.summary()}  # fmt: skip


def race_named(race, tensors: dict) -> dict | None:
    """The race (scripts/qualify/races.py) with its address named as the
    exercise names its tensors, where it lies in one."""
    if race is None:
        return None
    found = race.to_dict()
    for name, tensor in tensors.items():
        start, size = tensor.data_ptr(), tensor.element_size()
        if start <= race.address < start + tensor.numel() * size:
            found["tensor"], found["element"] = name, (race.address - start) // size
    return found


def run_job(number: int, path: str, job: Path, progress: Path) -> None:
    plan = json.loads((job / "plan.json").read_text())
    printed = Bounded()
    os.chdir(Path(path).parent)  # the learner's folder, as if they ran it
    with contextlib.redirect_stdout(printed):
        try:
            function = load_function(number, path, plan["function"])
        except BaseException as exc:  # the learner's file, reported in one line
            if isinstance(exc, KeyboardInterrupt):
                raise
            printed.save(job / "printed.txt")
            (job / "fatal.json").write_text(json.dumps(one_line(exc, path)))
            return
        for index, case in enumerate(plan["cases"]):
            progress.write_text(case["case"])
            (job / "progress.txt").write_text(case["case"])
            try:
                result = run_case(function, index, case, job, plan, path)
            except BaseException as exc:  # the learner's exception, one line
                if isinstance(exc, KeyboardInterrupt):
                    raise
                result = one_line(exc, path)
            (job / f"out{index}.json").write_text(json.dumps(result))
            printed.save(job / "printed.txt")
    (job / "done").write_text("")


def main(listing: str) -> int:
    progress = Path(f"{listing}.progress")
    for number, line in enumerate(Path(listing).read_text().splitlines()):
        path, job = line.split("\t")
        if (Path(job) / "done").exists() or (Path(job) / "fatal.json").exists():
            continue  # finished by a child before this one
        (Path(job) / "started").write_text("")
        run_job(number, os.path.realpath(path), Path(job), progress)
    return 0


def _guard_spans(storages: dict, guard: int) -> dict:
    """name -> (guard start, data start, data end, guard end), in bytes."""
    spans = {}
    for name, base in storages.items():
        size = base.element_size()
        start = base.data_ptr()
        end = start + base.numel() * size
        spans[name] = (start - guard * size, start, end, end + guard * size)
    return spans


def _guard_bytes(buffer: torch.Tensor, guard: int) -> torch.Tensor:
    """Every byte of the `guard` elements before out, then those after it."""
    size = buffer.element_size()
    raw = buffer.view(torch.uint8)
    return torch.cat([raw[: guard * size], raw[-guard * size :]])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
