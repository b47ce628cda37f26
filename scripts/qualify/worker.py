"""The candidate's process, on the child side of the evaluator
(``scripts/qualify/evaluator.py``): forked by the fork server
(``scripts/qualify/fork_server.py``) inside the sandbox of
``scripts/qualify/sandbox.py``, it imports the candidate and calls it on
every case. It judges nothing.

What a candidate's process writes (formats in ``scripts/qualify/records.py``):

* ``case-N.safetensors``: the bytes of each call's output (a CPU copy taken at once)
  and of both input storages after the call;
* ``case-N.json``: claims the bytes cannot show: the exception a call
  raised, the Triton kernels it launched (grid, whether the output's storage
  was an argument, what it specialises on, which the parent compiles for
  sm_90a itself: ``scripts/qualify/compile_check.py``), input tensors
  whose version counter moved (an in-place write, even one undone later),
  memory shared with an input or an earlier output;
* ``final.safetensors``: every output and input storage again, after the last case,
  so the parent can see what changed after a call returned.

Under the interpreter a grid beyond CUDA's limits (x up to 2**31 - 1, y and
z up to 65535) fails the launch here as it would on a GPU, and "launch plan"
calls record their launches without running the programs.

The inputs are not written here: they are views of the parent's sealed
memfd, mapped read-only (``scripts/qualify/shared_inputs.py``), so on the
CPU a write to one faults and ends the process.

Everything else here runs next to the candidate's code, so a candidate can forge
it; the parent judges values, mutations and later changes from the bytes,
reads every file strictly, and lists the constructs that forging needs
(``scripts/qualify/review.py``).
"""

from __future__ import annotations

import contextlib

# encodings.idna is imported here, before any fork: the candidate runs as
# nobody when the evaluator is root, and an interpreter installed under /root
# cannot be read by nobody, so a codec first looked up later (by a socket
# call) would fail to load for a reason that is not the candidate's.
import encodings.idna  # noqa: F401
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

import torch
import triton  # noqa: F401  (imported once, before any fork)

from scripts.qualify import (
    interpreter_rounding,
    races,
    records,
    sandbox,
    shared_inputs,
)
from scripts.qualify.launch_log import (
    LaunchLog,
    install_launch_hooks,
    overlaps,
    storage_range,
)

DIRT_BYTE = 0xC2  # 0xC2C2C2C2 is -97.38 in float32: a value to notice
DTYPES = {str(d): d for d in (torch.float32, torch.float16, torch.bfloat16)}
DTYPES.update({str(d): d for d in (torch.float64, torch.int32, torch.bool)})
DTYPES.update({str(d): d for d in (torch.int64, torch.uint8, torch.complex64)})
DTYPES.update({str(d): d for d in (torch.float8_e4m3fn,)})


def load_candidate(path: str):
    spec = importlib.util.spec_from_file_location("qualify_candidate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["qualify_candidate"] = module
    spec.loader.exec_module(module)
    return module


def describe_exception(exc: BaseException) -> dict:
    return {
        "type": type(exc).__name__,
        "mro": [cls.__name__ for cls in type(exc).__mro__],
        "message": _message(exc),
    }


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:2000]
    except Exception:  # a candidate's exception whose __str__ raises
        return "<message could not be read>"


def process_state() -> dict:
    """What a call must leave as it found it outside its tensors: open file
    descriptors, running threads, autograd's mode and the RNG's state."""
    try:
        fds = len(os.listdir("/proc/self/fd"))
    except OSError:
        fds = -1
    return {
        "open file descriptors": fds,
        "threads": threading.active_count(),
        "grad mode": torch.is_grad_enabled(),
        "the CPU RNG state": hash(torch.random.get_rng_state().numpy().tobytes()),
    }


def state_changes(before: dict, after: dict) -> list[str]:
    return [
        f"{name}: {_shown(before[name])} before, {_shown(after[name])} after"
        for name in before
        if before[name] != after[name]
    ]


def _shown(value) -> str:
    return "changed" if isinstance(value, int) and abs(value) > 1 << 20 else str(value)


def dirty_freed_memory(nbytes: int, device: str, copies: int = 4) -> None:
    """Fill memory the allocator is likely to hand out next with DIRT_BYTE,
    then free it: an output the kernel never writes then holds -97.38 (or
    another negative number), not zeros or a freed copy of the answer."""
    if nbytes <= 0:
        return
    dirt = [
        torch.full((nbytes,), DIRT_BYTE, dtype=torch.uint8, device=device)
        for _ in range(copies)
    ]
    del dirt


class CaseRunner:
    def __init__(
        self, function, device: str, log: LaunchLog, mapped=None, names=("a", "b")
    ):
        self.function = function
        self.names = tuple(names)  # the task's arguments, in order
        self.device = device
        self.log = log
        self.mapped = mapped  # the parent's sealed inputs (shared_inputs.Mapped)
        self.alive: list[tuple[str, torch.Tensor]] = []  # earlier outputs
        # (label, the output, its bytes when its call returned)
        self.at_return: list[tuple[str, torch.Tensor, torch.Tensor]] = []
        self.reported: set[str] = set()  # earlier results already found changed
        self.kept: dict[str, torch.Tensor] = {}  # name -> tensor, for final.safetensors

    def materialize(self, spec, shared=None):
        """(tensor or object, device base or None) from the parent's spec;
        `shared` is the bases made so far, for an input that views an earlier
        one's storage (its "storage" is that input's position)."""
        kind = spec["kind"]
        if kind == "object":
            return spec["value"], None
        if kind == "empty":  # launch-plan inputs: never read, never touched
            dtype = DTYPES[spec["dtype"]]
            return torch.empty(spec["size"], dtype=dtype, device=self.device), None
        device = spec.get("device") or self.device
        if spec.get("storage") is not None and shared:
            base = shared[spec["storage"]]  # aliased: one storage, two views
        elif isinstance(spec["base"], dict):  # a region of the parent's memfd
            base = self.mapped.tensor(spec["base"])
            if device != "cpu":  # device memory: writable, checked from bytes
                base = base.to(device, copy=True)
        else:
            base = spec["base"].to(device, copy=True)
        if spec.get("fresh"):  # allocated here, not a view of anything
            tensor = torch.empty(spec["size"], dtype=base.dtype, device=device)
            tensor.copy_(base.reshape(spec["size"]))
            return tensor, tensor.view(-1)
        view = base.as_strided(spec["size"], spec["stride"], spec["offset"])
        return view, base

    def read_only(self, base) -> bool:
        """Whether `base` is the parent's sealed memory (writes fault)."""
        if self.mapped is None or not isinstance(base, torch.Tensor):
            return False
        if base.device.type != "cpu":
            return False
        address = base.untyped_storage().data_ptr()
        return self.mapped.start <= address < self.mapped.end

    def refill(self, tensors, bases, spec) -> None:
        """New values in the same buffers: read-only ones get the refill's
        pages moved onto their addresses, others a copy."""
        moved = set()
        for tensor, base, values in zip(tensors, bases, spec["refill"], strict=True):
            if isinstance(values, dict) and self.read_only(base):
                address = base.untyped_storage().data_ptr()
                if address not in moved:  # inputs sharing a storage: once
                    self.mapped.move(values, base)
                    moved.add(address)
            elif isinstance(values, dict):
                fresh = self.mapped.tensor(values).to(base.device)
                base.copy_(fresh.reshape(base.shape))
            else:
                tensor.copy_(values.to(tensor.device))

    def run_case(self, index: int, case: dict, inputs: list) -> tuple[dict, dict]:
        """(claims, tensors) of one case."""
        calls, tensors_out = [], {}
        tensors = bases = saved = None
        chain = -1
        for call, spec in zip(case["calls"], inputs, strict=True):
            number = len(calls) + 1
            if call["reuse"] == "same":
                # The same tensors holding the same values: undo anything the
                # previous call wrote, so a repeat is judged on equal inputs.
                # (Read-only inputs cannot have changed: they have no copy.)
                for base, copy in zip(bases, saved, strict=True):
                    if copy is not None:
                        base.copy_(copy)
            elif call["reuse"] == "refill":
                self.refill(tensors, bases, spec)
                saved = self.saved(bases)
            else:
                made = []
                for arg in spec["args"]:
                    if arg.get("same"):  # the same tensor as an earlier input
                        made.append(made[arg["storage"]])
                    else:
                        made.append(self.materialize(arg, [m[1] for m in made]))
                tensors = [m[0] for m in made]
                bases = [m[1] for m in made]
                saved = self.saved(bases)
                chain += 1
            label = f"{case['name']} call {number}"
            claim, copy, live = self.run_call(
                call, tensors, bases, label, all_earlier=number == 1
            )
            calls.append(claim)
            if call["mode"] == "values":
                if copy is not None:
                    tensors_out[f"c{number}.out"] = copy
                    self.kept[f"k{index}.c{number}.out"] = live
                for name, base in zip(self.names, bases, strict=True):
                    tensors_out[f"c{number}.{name}"] = base.to("cpu", copy=True)
                    self.kept[f"k{index}.chain{chain}.{name}"] = base
        return {"name": case["name"], "calls": calls}, tensors_out

    def race_watch(self):
        """The race watch of one call: under the interpreter, where the
        programs' accesses are seen (scripts/qualify/races.py)."""
        if self.device != "cpu":
            return contextlib.nullcontext()
        return races.watching()

    def race_claim(self, watch, out, tensors) -> dict | None:
        """The first race of the call, its tensor named as the task names
        it (an input, the output) where the address lies in one."""
        race = getattr(watch, "found", None)
        if race is None:
            return None
        claim = race.to_dict()
        named = list(zip(self.names, tensors, strict=True)) + [("the output", out)]
        for name, tensor in named:
            if isinstance(tensor, torch.Tensor) and tensor.device.type == "cpu":
                start, size = tensor.data_ptr(), tensor.element_size()
                end = tensor.untyped_storage().data_ptr()
                end += tensor.untyped_storage().nbytes()
                if start <= race.address < end:
                    claim["tensor"] = name
                    claim["element"] = (race.address - start) // size
        return claim

    def saved(self, bases) -> list:
        """Copies to restore writable bases from before a repeat call."""
        return [
            b.clone() if b is not None and not self.read_only(b) else None
            for b in bases
        ]

    def run_call(self, call: dict, tensors, bases, label: str, all_earlier=True):
        """(claims, a copy of the output, the output itself) of one call; the
        outputs are None unless the call returned a plain tensor."""
        mode = call["mode"]
        if mode == "values":
            dirty_freed_memory(call["out_nbytes"], self.device)
        self.log.begin_call(plan_only=mode == "plan")
        versions = [t._version if torch.is_tensor(t) else None for t in tensors]
        out = raised = None
        state = process_state()
        if self.mapped is not None:
            self.mapped.watch(tensors)
        watch = None
        try:
            with self.race_watch() as watch:
                out = self.function(*tensors)
        except BaseException as exc:  # SystemExit included: it is a result
            raised = describe_exception(exc)
        changed_state = state_changes(state, process_state())
        earlier_changed = self.earlier_changed() if all_earlier else []
        written = [
            name
            for name, t, v in zip(self.names, tensors, versions, strict=True)
            if v is not None and t._version != v
        ]
        self.log.mark_output(out if raised is None else None)
        claim = {
            "raised": raised,
            "launches": list(self.log.records),
            "input_device": None,
            "output": None,
            "inputs_written": written,
            "state_changed": changed_state,
            "earlier_changed": earlier_changed,
            "race": self.race_claim(watch, out, tensors),
        }
        first = tensors[0]
        claim["input_device"] = str(first.device) if torch.is_tensor(first) else None
        self.log.begin_call(plan_only=False)
        if raised is None:
            claim["output"] = self.describe_output(out, tensors, label, mode)
            if mode == "values" and claim["output"]["plain"]:
                copy = out.detach().to("cpu", copy=True)
                self.at_return.append((label, out, copy))
                return claim, copy, out
        return claim, None, None

    def earlier_changed(self) -> list[str]:
        """Earlier results whose bytes differ from those at their return,
        checked after the first call of every case, so a late write shows a
        case after it was made. Results over 2**16 elements are left to the
        parent's end-of-run comparison (from bytes, of every result): here
        they cost a fifth of the run. Checking after every call cost a
        quarter."""
        changed = []
        for label, live, copy in self.at_return:
            if label in self.reported or live.numel() > 1 << 16:
                continue
            now = live.detach().to("cpu")
            if now.shape != copy.shape or not torch.equal(
                now.reshape(-1).view(torch.uint8), copy.reshape(-1).view(torch.uint8)
            ):
                changed.append(label)
                self.reported.add(label)
        return changed[:20]

    def describe_output(self, out, tensors, label: str, mode: str) -> dict:
        plain = type(out) is torch.Tensor
        info = {
            "plain": plain,
            "type": str(type(out).__name__),
            "shape": None,
            "dtype": None,
            "device": None,
            "aliases": None,
            "storage_nbytes": None,
            "storage_offset": None,
        }
        if not isinstance(out, torch.Tensor):
            return info
        info.update(
            shape=list(out.shape),
            dtype=str(out.dtype),
            device=str(out.device),
            aliases=[],
            storage_nbytes=int(out.untyped_storage().nbytes()),
            storage_offset=int(out.storage_offset()),
        )
        span = storage_range(out)
        for name, tensor in zip(self.names, tensors, strict=True):
            if isinstance(tensor, torch.Tensor) and overlaps(
                span, storage_range(tensor)
            ):
                info["aliases"].append(name)
        for earlier_label, earlier in self.alive:
            if overlaps(span, storage_range(earlier)):
                info["aliases"].append(f"the output of {earlier_label}")
        if mode == "values" and plain:
            self.alive.append((label, out))  # kept alive to the end of the run
        return info

    def final_state(self) -> dict[str, torch.Tensor]:
        """Every output (the live tensor, not the copy taken at the call)
        and every input storage, as they are after the last case."""
        return dict(self.kept)


def _redirect_output(workdir: Path) -> None:
    """The candidate's prints go to files the parent can show on a crash."""
    sys.stdout.flush()
    sys.stderr.flush()
    for stream, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        fd = os.open(workdir / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, stream)
        os.close(fd)


def child_main(
    candidate: str,
    workdir: str,
    device: str,
    memory: int | None,
    inputs_fd: int | None = None,
    setup_fd: int | None = None,
) -> None:
    """One candidate's process: set up, import it, run every case, write the
    files. Whatever fails before the candidate's import is the evaluator's
    own fault: its whole traceback goes to `setup_fd` (a pipe to the fork
    server, closed before the candidate runs, so the candidate cannot write
    to it), and the parent reports a harness error, not a verdict."""
    try:
        prepared = _set_up(candidate, workdir, device, memory, inputs_fd)
    except BaseException:
        report_setup(setup_fd, "error\n" + traceback.format_exc())
        raise SetupFailed() from None
    report_setup(setup_fd, "ok")
    _run_candidate(candidate, device, *prepared)


class SetupFailed(Exception):
    """The job's setup failed before the candidate ran (reported already)."""


#: The exit code of a job whose setup failed (the fork server's reply says why).
SETUP_FAILED = 75
#: The longest setup report the fork server passes on (a pipe holds 64 KiB).
MAX_SETUP_REPORT = 16000


def report_setup(fd: int | None, text: str) -> None:
    if fd is None:
        return
    try:
        os.write(fd, text.encode("utf-8", "replace")[:MAX_SETUP_REPORT])
    finally:
        os.close(fd)


def _set_up(candidate, workdir, device, memory, inputs_fd):
    """Everything before the candidate's import: (work, plan, inputs,
    mapped, log, progress)."""
    work = Path(workdir)
    _redirect_output(work)
    if problem := sandbox.unreadable_for_candidate():
        raise PermissionError(problem)
    mapped = None
    if inputs_fd is not None:  # map the parent's sealed inputs, read-only
        mapped = shared_inputs.Mapped(inputs_fd)
        os.close(inputs_fd)
        note = os.open(
            work / shared_inputs.FAULT_FILE,
            os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
            0o644,
        )
        shared_inputs.note_faults(mapped, note)
    # Triton reads TRITON_INTERPRET when @triton.jit runs: before the import.
    os.environ["TRITON_INTERPRET"] = "1" if device == "cpu" else "0"
    os.environ["TRITON_CACHE_DIR"] = str(work / "triton-cache")
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    # Scratch files (the compiler's too) go to the job's own directory: the
    # sandbox's /tmp is not writable by nobody.
    os.environ["TMPDIR"] = str(work)
    tempfile.tempdir = str(work)
    plan = json.loads((work / "plan.json").read_text())
    inputs = torch.load(work / "inputs.pt", weights_only=True)
    sandbox.limit_resources(memory)
    log = LaunchLog(candidate, compile_for_gpu=device == "cpu")
    if device == "cpu":  # bfloat16 and TF32 rounded as compiled code rounds them
        interpreter_rounding.round_bf16_to_nearest_even()
        interpreter_rounding.round_tf32_dots(log.note_tf32_dot)
    install_launch_hooks(log)
    progress = open(work / "progress", "a", buffering=1)  # noqa: SIM115
    return work, plan, inputs, mapped, log, progress


def _run_candidate(candidate, device, work, plan, inputs, mapped, log, progress):
    progress.write("import\n")
    try:
        module = load_candidate(candidate)
    except BaseException as exc:
        status = {"stage": "import", "cpu_s": None, **describe_exception(exc)}
        del status["mro"]
        records.write_claim(work / "status.json", status)
        return
    function = getattr(module, plan["function"], None)
    if not callable(function):
        records.write_claim(
            work / "status.json",
            {"stage": "function", "type": None, "message": None, "cpu_s": None},
        )
        return
    runner = CaseRunner(function, device, log, mapped, plan["args"])
    for index, case in enumerate(plan["cases"]):
        progress.write(f"start {index}\n")
        began = time.perf_counter()
        claim, tensors = runner.run_case(index, case, inputs[case["name"]])
        claim["seconds"] = time.perf_counter() - began
        records.write_tensors(work / f"case-{index}.safetensors", tensors)
        records.write_claim(work / f"case-{index}.json", claim)
        progress.write(f"end {index}\n")
    records.write_tensors(work / "final.safetensors", runner.final_state())
    status = {"stage": "done", "type": None, "message": None}
    records.write_claim(work / "status.json", {**status, "cpu_s": time.process_time()})
    sys.stdout.flush()


def run_job(request: dict) -> int:
    """One job: run the candidate; the process's exit code."""
    code = 0
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        child_main(
            request["candidate"],
            request["workdir"],
            request["device"],
            request.get("memory"),
            request.get("inputs_fd"),
            request.get("setup_fd"),
        )
    except SetupFailed:
        code = SETUP_FAILED
    except BaseException:
        traceback.print_exc()
        code = 70
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return code
