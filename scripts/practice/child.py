"""The learner's side of a practice check: load the file, call its function
on each case's inputs, write the tensors back. Nothing is judged here.

``python -m scripts.practice.child LISTING`` (run by ``scripts.practice``
under ``TRITON_INTERPRET=1``): each line of LISTING is a learner's file and a
job folder, run in turn so torch and Triton load once. A job folder holds
``plan.json`` and one ``in<i>.safetensors`` per case; for each case the child
writes ``progress.txt`` before calling, then ``out<i>.safetensors`` (the
output with its guard bytes, the inputs' storages after the call, a second
output for a determinism check) and ``out<i>.json`` (ok, or the exception in
one line); ``done`` at the end, or ``fatal.json`` if the file would not
import or lacks the function.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from snippets.lib.accesses import describe, reads_into_guards, record

DTYPES = {"float32": torch.float32, "int32": torch.int32, "uint8": torch.uint8}
GUARD_FILL = {torch.float32: float("nan"), torch.int32: 2**30, torch.uint8: 0xA5}


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


def run_job(number: int, path: str, job: Path) -> None:
    plan = json.loads((job / "plan.json").read_text())
    try:
        spec = importlib.util.spec_from_file_location(f"learner_{number}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        function = getattr(module, plan["function"])
    except Exception as exc:  # the learner's file, reported in one line
        message = " ".join(str(exc).split())[:300]
        error = f"{type(exc).__name__}: {message}"
        (job / "fatal.json").write_text(json.dumps({"error": error}))
        return
    sentinel, guard = plan["sentinel"], plan["guard"]
    for index, case in enumerate(plan["cases"]):
        (job / "progress.txt").write_text(f"case {case['case']!r}")
        bases = load_file(str(job / f"in{index}.safetensors"))
        args, storages = [], {}
        for name, view, fill, _ in case["inputs"]:
            if fill == "window":  # a 2 GiB tensor, untouched but for its window
                start = case["params"]["start"]
                huge = torch.empty(plan["huge"], dtype=torch.uint8)
                huge[start : start + bases[name].numel()] = bases[name]
                args.append(huge)
                continue
            storage = guarded(bases[name], guard)
            storages[name] = storage
            args.append(view_of(storage, view))
        dtype = DTYPES[case["out_dtype"]]
        out, buffer = fresh_out(case["out_shape"], dtype, sentinel, guard)
        try:
            with reads_into_guards(_guard_spans(storages, guard)) as read_past:
                if plan.get("accesses") and index == 0:  # the first case, watched
                    watched = {n: s for n, s in storages.items()} | {"out": out}
                    with record(watched) as seen:
                        function(*args, out, **case["params"])
                    (job / "accesses.txt").write_text(describe(seen))
                else:
                    function(*args, out, **case["params"])
            tensors = {"out": out.clone(), "out_guard": _guard_bytes(buffer, guard)}
            if plan["again"]:
                again, _ = fresh_out(case["out_shape"], dtype, sentinel, guard)
                function(*args, again, **case["params"])
                tensors["again"] = again.clone()
            tensors.update({f"in:{n}": s.clone() for n, s in storages.items()})
            save_file(tensors, str(job / f"out{index}.safetensors"))
            result = {"status": "ok", "read_past": sorted(read_past)}
        except Exception as exc:  # the learner's exception, reported in one line
            message = " ".join(str(exc).split())[:300]
            result = {"status": "error", "error": f"{type(exc).__name__}: {message}"}
        (job / f"out{index}.json").write_text(json.dumps(result))
    (job / "done").write_text("")


def main(listing: str) -> int:
    for number, line in enumerate(Path(listing).read_text().splitlines()):
        path, job = line.split("\t")
        if (Path(job) / "done").exists() or (Path(job) / "fatal.json").exists():
            continue  # finished by a child before this one
        run_job(number, path, Path(job))
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
    """The guard elements before and after out, as bytes."""
    size = buffer.element_size()
    raw = buffer.view(torch.uint8)
    before, after = raw[: guard * size], raw[-guard * size :]
    return torch.cat([before[-guard:], after[:guard]])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
