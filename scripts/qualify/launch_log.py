"""What the candidate's process records about each Triton launch (used by
``scripts/qualify/worker.py``): the kernel, its grid (a grid beyond CUDA's
limits fails the launch here, as on a GPU), whether the output's storage
was an argument, and the launch's specialisation, which the parent compiles
for sm_90a itself (``scripts/qualify/compile_check.py``). These are claims of
the candidate's process: the parent judges them, and compiles from its own
copy of the source.
"""

from __future__ import annotations

import os
import re

import torch

from kernels.launches import SkipPrograms, grid_violation, intercept, launch_grid
from scripts.qualify.compile_check import compile_for_sm90a


class GridLimitExceeded(RuntimeError):
    """A launch whose grid a GPU would refuse."""


class LaunchLog:
    """Every Triton launch made during the current call."""

    def __init__(self, candidate_file: str, compile_for_gpu: bool = False):
        self.candidate_file = os.path.realpath(candidate_file)
        self.records: list[dict] = []
        self.spans: list[list] = []  # storage ranges of each launch's tensors
        self.plan_only = False
        self.compile_for_gpu = compile_for_gpu
        self.compiled: dict[str, str | None] = {}  # kernel -> error or None

    def begin_call(self, plan_only: bool) -> None:
        self.records = []
        self.spans = []
        self.plan_only = plan_only

    def start(self, kernel, args=(), kwargs=None) -> dict:
        fn = getattr(kernel, "fn", None)
        code = getattr(fn, "__code__", None)
        file = os.path.realpath(code.co_filename) if code else "?"
        record = {
            "kernel": str(getattr(fn, "__name__", type(kernel).__name__)),
            "own": file == self.candidate_file,
            "grid": None,
            "violation": None,
            "programs_run": True,
            "writes_output": False,
            "compiled": False,
            "compile_error": None,
        }
        values = list(args) + list((kwargs or {}).values())
        self.spans.append(
            [storage_range(v) for v in values if isinstance(v, torch.Tensor)]
        )
        self.records.append(record)
        if record["own"] and self.compile_for_gpu and fn is not None:
            record["compile_error"] = self.compile_once(fn, args, kwargs or {})
            record["compiled"] = record["compile_error"] is None
        return record

    def compile_once(self, fn, args, kwargs) -> str | None:
        """Compile each kernel once, with the first launch's argument types.
        Not once per specialisation: compiled inside this interpreted
        process, a later specialisation can fail for the interpreter's own
        reasons (its patched language), which would reject good candidates;
        that check needs a process of its own (the docs list it as open)."""
        key = f"{fn.__module__}.{fn.__qualname__}"
        if key not in self.compiled:
            try:
                compile_for_sm90a(fn, args, kwargs)
                self.compiled[key] = None
            except Exception as exc:  # the candidate's kernel, not ours
                first = str(exc).strip().splitlines() or [""]
                text = re.sub(r" at 0x[0-9a-f]+", "", first[-1])[:300]
                self.compiled[key] = f"{type(exc).__name__}: {text}"
        return self.compiled[key]

    def mark_output(self, out) -> None:
        span = storage_range(out) if isinstance(out, torch.Tensor) else None
        for record, spans in zip(self.records, self.spans, strict=True):
            record["writes_output"] = any(overlaps(span, s) for s in spans)


def install_launch_hooks(log: LaunchLog) -> None:
    """Extend the one launch interceptor (kernels/launches.py) so the log
    sees every launch, and checks its grid before it runs."""

    def before(kernel, args, kwargs, grid, interpreted):
        record = log.start(kernel, args, kwargs)
        if not interpreted:  # on a GPU: check the grid before launching
            record["grid"] = launch_grid(kernel, grid, args, kwargs)
            if record["grid"] and (problem := grid_violation(record["grid"])):
                record["violation"] = problem
                raise GridLimitExceeded(problem)

    intercept(before)
    try:
        from triton.runtime import interpreter

        builder = getattr(interpreter, "interpreter_builder", None)
    except ImportError:  # pragma: no cover - every Triton we run has it
        builder = None
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
                raise SkipPrograms()
            return original_set(nx, ny, nz)

        builder.set_grid_dim = set_grid_dim


def storage_range(tensor: torch.Tensor) -> tuple[int, int] | None:
    if tensor.device.type == "meta":
        return None
    storage = tensor.untyped_storage()
    if storage.nbytes() == 0:
        return None
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def overlaps(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]
