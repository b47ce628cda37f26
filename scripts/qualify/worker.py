"""The child process of the evaluator (``scripts/qualify/evaluator.py``):
import a candidate, call it on every case, and record what it did. It
judges nothing.

The parent builds every input and compares every output; this process only
runs the untrusted code, so a candidate that patches ``torch`` here (or
crashes, or hangs) cannot change the verdict's arithmetic. What it records:

* each call's output (a CPU copy taken at once) or the exception it raised;
* the input storages after the call, for the parent's bit-by-bit check;
* which Triton kernels each call launched, with their grids. Under the
  interpreter a grid beyond CUDA's limits (x up to 2**31 - 1, y and z up to
  65535) fails the launch here as it would on a GPU, and "launch plan" calls
  record their launches without running the programs (shapes too large for
  the interpreter);
* whether an output shares memory with an input or with an earlier output.

The measurements taken in this process (launch counts, aliasing) could be
forged by a candidate that patches this module; the comparison of values
could not, because it happens in the parent.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path

import torch
import triton  # noqa: F401  (imported once, before any fork)

from kernels.launches import grid_violation

CANDIDATE_FUNCTION = "residual_add_relu"
DIRT_BYTE = 0xC2  # 0xC2C2C2C2 is -97.38 in float32: no relu output is negative
DTYPES = {str(d): d for d in (torch.float32, torch.float16, torch.bfloat16)}
DTYPES.update({str(d): d for d in (torch.float64, torch.int32, torch.bool)})


class GridLimitExceeded(RuntimeError):
    """A launch whose grid a GPU would refuse."""


class _SkipPrograms(BaseException):  # noqa: N818  (a signal, not an error)
    """Unwinds a launch-plan launch after its grid is recorded. A
    BaseException, so a candidate's `except Exception` cannot swallow it."""


class LaunchLog:
    """Every Triton launch made during the current call."""

    def __init__(self, candidate_file: str):
        self.candidate_file = os.path.realpath(candidate_file)
        self.records: list[dict] = []
        self.plan_only = False

    def begin_call(self, plan_only: bool) -> None:
        self.records = []
        self.plan_only = plan_only

    def start(self, kernel) -> dict:
        fn = getattr(kernel, "fn", None)
        code = getattr(fn, "__code__", None)
        file = os.path.realpath(code.co_filename) if code else "?"
        record = {
            "kernel": getattr(fn, "__name__", type(kernel).__name__),
            "file": file,
            "own": file == self.candidate_file,
            "grid": None,
            "violation": None,
            "programs_run": True,
        }
        self.records.append(record)
        return record


def _padded(grid) -> tuple[int, int, int]:
    sizes = tuple(int(g) for g in grid)
    return sizes + (1,) * (3 - len(sizes))


def _grid_from_launch(kernel, grid, args, kwargs):
    """The grid a JIT launch will use (a callable grid receives the bound
    arguments, as Triton gives it); None if it cannot be worked out."""
    try:
        if callable(grid):
            signature = inspect.signature(kernel.fn)
            named = {k: v for k, v in kwargs.items() if k in signature.parameters}
            bound = signature.bind_partial(*args, **named)
            bound.apply_defaults()
            grid = grid({**kwargs, **bound.arguments})
        return _padded(grid)
    except Exception:
        return None


def install_launch_hooks(log: LaunchLog) -> None:
    """Wrap every way a Triton kernel is launched so the log sees it."""
    from triton.runtime.jit import JITFunction

    kernel_classes = [(JITFunction, False)]
    builder = None
    try:
        from triton.runtime import interpreter

        kernel_classes.append((interpreter.InterpretedFunction, True))
        builder = getattr(interpreter, "interpreter_builder", None)
    except ImportError:  # pragma: no cover - every Triton we run has it
        pass

    for cls, interpreted in kernel_classes:
        original = cls.run

        def run(
            self, *args, grid, warmup, _original=original, _interp=interpreted, **kwargs
        ):
            if warmup:
                return _original(self, *args, grid=grid, warmup=warmup, **kwargs)
            record = log.start(self)
            if not _interp:  # on a GPU: check the grid before launching
                record["grid"] = _grid_from_launch(self, grid, args, kwargs)
                if record["grid"] and (problem := grid_violation(record["grid"])):
                    record["violation"] = problem
                    raise GridLimitExceeded(problem)
            try:
                return _original(self, *args, grid=grid, warmup=warmup, **kwargs)
            except _SkipPrograms:
                return None

        cls.run = run

    if builder is not None and hasattr(builder, "set_grid_dim"):
        original_set = builder.set_grid_dim

        def set_grid_dim(nx, ny, nz):
            # The interpreter calls this once per launch with the final grid.
            record = log.records[-1] if log.records else log.start(None)
            record["grid"] = [int(nx), int(ny), int(nz)]
            if problem := grid_violation((nx, ny, nz)):
                record["violation"] = problem
                raise GridLimitExceeded(problem)
            if log.plan_only:
                record["programs_run"] = False
                raise _SkipPrograms()
            return original_set(nx, ny, nz)

        builder.set_grid_dim = set_grid_dim


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
        "message": str(exc),
        "traceback": "".join(traceback.format_exception(exc)[-6:]),
    }


def storage_range(tensor: torch.Tensor) -> tuple[int, int] | None:
    if tensor.device.type == "meta":
        return None
    storage = tensor.untyped_storage()
    if storage.nbytes() == 0:
        return None
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def overlaps(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


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
    def __init__(self, function, device: str, log: LaunchLog):
        self.function = function
        self.device = device
        self.log = log
        self.alive: list[tuple[str, torch.Tensor]] = []  # earlier outputs

    def materialize(self, spec):
        """(tensor or object, device base or None) from the parent's spec."""
        kind = spec["kind"]
        if kind == "object":
            return spec["value"], None
        if kind == "empty":  # launch-plan inputs: never read, never touched
            dtype = DTYPES[spec["dtype"]]
            return torch.empty(spec["size"], dtype=dtype, device=self.device), None
        device = spec.get("device") or self.device
        base = spec["base"].to(device)
        view = base.as_strided(spec["size"], spec["stride"], spec["offset"])
        return view, base

    def run_case(self, case: dict, inputs: list) -> dict:
        calls = []
        tensors = bases = saved = None
        for call, spec in zip(case["calls"], inputs, strict=True):
            if call["reuse"] == "same":
                # The same tensors holding the same values: undo anything the
                # previous call wrote, so a repeat is judged on equal inputs.
                for base, copy in zip(bases, saved, strict=True):
                    if base is not None:
                        base.copy_(copy)
            elif call["reuse"] == "refill":
                for tensor, values in zip(tensors, spec["refill"], strict=True):
                    tensor.copy_(values.to(tensor.device))
                saved = [b.clone() if b is not None else None for b in bases]
            else:
                made = [self.materialize(s) for s in (spec["x"], spec["residual"])]
                tensors = [m[0] for m in made]
                bases = [m[1] for m in made]
                saved = [b.clone() if b is not None else None for b in bases]
            label = f"{case['name']} call {len(calls) + 1}"
            calls.append(self.run_call(call, tensors, bases, label))
        return {"name": case["name"], "calls": calls}

    def run_call(self, call: dict, tensors, bases, label: str) -> dict:
        mode = call["mode"]
        if mode == "values":
            dirty_freed_memory(call["out_nbytes"], self.device)
        self.log.begin_call(plan_only=mode == "plan")
        out = raised = None
        try:
            out = self.function(*tensors)
        except BaseException as exc:  # SystemExit included: it is a result
            raised = describe_exception(exc)
        record = {"raised": raised, "launches": list(self.log.records)}
        first = tensors[0]
        record["input_device"] = str(first.device) if torch.is_tensor(first) else None
        self.log.begin_call(plan_only=False)
        if raised is None:
            record["output"] = self.describe_output(out, tensors, label, mode)
            if mode == "values" and record["output"]["plain"]:
                record["values"] = out.detach().to("cpu", copy=True)
        if mode == "values":
            record["bases_after"] = [
                base.to("cpu", copy=True) for base in bases if base is not None
            ]
        return record

    def describe_output(self, out, tensors, label: str, mode: str) -> dict:
        plain = type(out) is torch.Tensor
        info = {"plain": plain, "type": type(out).__name__}
        if not isinstance(out, torch.Tensor):
            return info
        info.update(
            shape=list(out.shape),
            dtype=str(out.dtype),
            device=str(out.device),
            contiguous=out.is_contiguous(),
            aliases=[],
        )
        span = storage_range(out)
        for name, tensor in zip(("x", "residual"), tensors, strict=True):
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


def _redirect_output(workdir: Path) -> None:
    """The candidate's prints go to files the parent can show on a crash."""
    sys.stdout.flush()
    sys.stderr.flush()
    for stream, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        fd = os.open(workdir / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, stream)
        os.close(fd)


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def child_main(candidate: str, workdir: str, device: str) -> None:
    """Entry point of the child process, forked by serve()."""
    work = Path(workdir)
    _redirect_output(work)
    # Triton reads TRITON_INTERPRET when @triton.jit runs: before the import.
    os.environ["TRITON_INTERPRET"] = "1" if device == "cpu" else "0"
    plan = json.loads((work / "plan.json").read_text())
    inputs = torch.load(work / "inputs.pt", weights_only=True)
    log = LaunchLog(candidate)
    install_launch_hooks(log)
    progress = open(work / "progress.txt", "a", buffering=1)  # noqa: SIM115
    progress.write("import\n")
    try:
        module = load_candidate(candidate)
    except BaseException as exc:
        _write_json(
            work / "status.json", {"stage": "import", **describe_exception(exc)}
        )
        return
    function = getattr(module, CANDIDATE_FUNCTION, None)
    if not callable(function):
        _write_json(work / "status.json", {"stage": "function"})
        return
    runner = CaseRunner(function, device, log)
    for index, case in enumerate(plan["cases"]):
        progress.write(f"start {index}\n")
        began = time.perf_counter()
        result = runner.run_case(case, inputs[case["name"]])
        result["seconds"] = time.perf_counter() - began
        path = work / f"result-{index}.pt"
        torch.save(result, path.with_suffix(".tmp"))
        os.replace(path.with_suffix(".tmp"), path)
        progress.write(f"end {index}\n")
    _write_json(work / "status.json", {"stage": "done", "cpu_s": time.process_time()})
    sys.stdout.flush()


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent dies (the server when the
    evaluator dies, a child when the server dies), so a hung candidate
    cannot outlive the evaluator."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PDEATHSIG
    except (OSError, AttributeError):
        pass


def serve() -> None:
    """A fork server: torch and Triton are imported once, here; each request
    (one JSON line on stdin) forks a fresh child for one candidate. Replies
    on stdout: {"pid": ...} when the child starts, {"pid": ..., "exit": code}
    when it ends (a negative code is the signal that killed it).

    Forking this process is safe because it never runs a PyTorch operation:
    a process that has used OpenMP threads hangs its forked children.
    """
    _die_with_parent()  # the evaluator is gone: so are the server and child
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:  # the child
            _die_with_parent()
            code = 0
            try:
                devnull = os.open(os.devnull, os.O_RDONLY)
                os.dup2(devnull, 0)
                child_main(request["candidate"], request["workdir"], request["device"])
            except BaseException:
                traceback.print_exc()
                code = 70
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(
            json.dumps({"pid": pid, "exit": os.waitstatus_to_exitcode(status)}),
            flush=True,
        )


if __name__ == "__main__":
    serve()
