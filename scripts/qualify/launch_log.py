"""What the candidate's process records about each Triton launch (used by
``scripts/qualify/worker.py``): the kernel, its grid (a grid beyond CUDA's
limits fails the launch here, as on a GPU), whether the output's storage
was an argument, and the launch's specialisation, which the parent compiles
for sm_90a itself (``scripts/qualify/compile_check.py``). These are claims of
the candidate's process: the parent judges them, and compiles from its own
copy of the source.
"""

from __future__ import annotations

import json
import os

import torch

from kernels.launches import SkipPrograms, grid_violation, intercept, launch_grid
from scripts.qualify.compile_check import launch_specialisation


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
        self.said: set[str] = set()  # specialisations this call recorded

    def begin_call(self, plan_only: bool) -> None:
        self.records = []
        self.spans = []
        self.plan_only = plan_only
        self.said = set()

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
            "tf32_dots": 0,  # counted by interpreter_rounding.round_tf32_dots
            "compiled": False,  # set by the parent's compile check
            "compile_error": None,
            "specialisation": None,
        }
        values = list(args) + list((kwargs or {}).values())
        self.spans.append(
            [storage_range(v) for v in values if isinstance(v, torch.Tensor)]
        )
        self.records.append(record)
        if record["own"] and self.compile_for_gpu and fn is not None:
            record["specialisation"] = self.specialisation(fn, args, kwargs or {})
        return record

    def specialisation(self, fn, args, kwargs) -> str | None:
        """What this launch specialises on (compile_check.py), as text; None
        when an earlier launch of this call already said the same."""
        try:
            spec = launch_specialisation(fn, args, kwargs)
            text = json.dumps(spec, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            text = json.dumps({"error": str(exc)[:200]})
        if text in self.said:
            return None
        self.said.add(text)
        return text

    def note_tf32_dot(self) -> None:
        """A float32 tl.dot of the current launch ran as TF32."""
        if self.records:
            self.records[-1]["tf32_dots"] += 1

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
