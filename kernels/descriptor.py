"""What every kernel module declares about itself, in one place.

Each ``kernels/<op>.py`` ends with ``DESCRIPTOR = Descriptor(...)``. The
benchmark runner, the artifact builder, the evaluator's cases and the kernel
catalog (``results/kernels.json``, which the pages read) all derive from it;
none of them retypes a configuration.

The launch configuration is a function of dtype and shape, and the launcher
calls the same function: ``tests/kernels/test_descriptor.py`` records what
every launch really used and fails when the two differ.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Benchmark profiles: ``tiny`` runs on a CPU in seconds, ``quick`` is one
#: representative shape, ``full`` adds L2-sized and awkward shapes,
#: ``compare`` is the qualification project's three-shape comparison.
PROFILES = ("tiny", "quick", "full", "compare")

Shape = Mapping[str, Any]


@dataclass(frozen=True)
class Launch:
    """One launch of one ``@triton.jit`` function: its name, the values of
    its ``tl.constexpr`` parameters, and the launch options."""

    kernel: str
    constexprs: Mapping[str, Any]
    num_warps: int
    num_stages: int | None = None  # None: Triton's default

    def options(self) -> dict[str, int]:
        """The keyword options a launch passes besides the constexprs."""
        options = {"num_warps": self.num_warps}
        if self.num_stages is not None:
            options["num_stages"] = self.num_stages
        return options

    def record(self) -> dict[str, Any]:
        """A JSON-ready form, as result files store it."""
        return {
            "kernel": self.kernel,
            "constexprs": dict(self.constexprs),
            **self.options(),
        }


@dataclass(frozen=True)
class ArtifactBuild:
    """One compilation for sm_90a, at the configuration the launcher would
    use for ``dtype`` and ``shape``.

    ``signature`` gives the Triton type of every runtime parameter
    (``"*bf16"``, ``"i32"``, ``"fp32"``); ``fixed`` gives constexpr values the
    JIT would specialize at launch and the config does not hold (a unit
    stride, ``INTERPRETED=False``); ``aligned`` names the arguments that get
    the 16-divisibility hint; ``launch`` picks one of several launches."""

    build: str
    dtype: str
    shape: Shape
    signature: Mapping[str, str]
    aligned: tuple[str, ...]
    shows: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    launch: int = 0


#: Bandwidth probes the runner measures in every run (see Descriptor.stream).
STREAMS = ("copy", "read")


@dataclass(frozen=True)
class Target:
    """One measurable goal: ``metric >= at_least`` (R, F or a speedup)."""

    metric: str  # "R", "F_bw", "F_flop" or "speedup_vs_eager"
    at_least: float
    shape: Shape | None = None  # None: every HBM-bound shape
    note: str = ""  # "against the best of eager, compile and SDPA"


@dataclass(frozen=True)
class Goal:
    """The H200 goals for one regime of a kernel (one row of the goals
    table): what must be reached, and the stretch."""

    regime: str  # "row fits on chip"
    must: tuple[Target, ...]
    stretch: tuple[Target, ...] = ()


@dataclass(frozen=True)
class Descriptor:
    """Everything the tools need to know about one kernel.

    Callables take the benchmark shape (a dict such as ``{"rows": 3,
    "cols": 1031}``) and, where it matters, the dtype; ``error_bound`` gets
    float64 copies of the inputs and the float64 truth and returns the
    elementwise bound ``|out - truth| <= bound``."""

    name: str  # the module's name under kernels/
    title: str  # "residual add + ReLU", as tables print it
    launcher: Callable
    reference: Callable
    metric: str  # "bandwidth" or "flops": what the fraction F uses
    shapes: Mapping[str, tuple[Shape, ...]]  # profile -> shapes
    make_inputs: Callable  # (shape, dtype, device, seed) -> tuple of tensors
    bytes_moved: Callable  # (shape, itemsize) -> int
    flops: Callable  # (shape) -> int
    launch_config: Callable  # (dtype, shape) -> list[Launch], in launch order
    error_bound: Callable  # (inputs64, truth64, dtype, shape) -> tensor
    shape_text: Callable  # shape -> "32768×4096"
    dtype_cuda: str = "bfloat16"
    dtype_cpu: str = "float32"
    call_kwargs: Callable = field(default=lambda shape: {})
    baselines: Mapping[str, Callable] = field(default_factory=dict)  # library ops
    eager_is: str = ""  # what the eager reference runs, for the record
    r_baselines: tuple[str, ...] = ("eager", "compile")
    # provider -> the largest speedup of the custom kernel the byte counts allow
    max_speedup: Mapping[str, float] = field(default_factory=dict)
    goals: tuple[Goal, ...] = ()
    artifact_builds: tuple[ArtifactBuild, ...] = ()
    # profile -> shapes a CPU run uses instead: there the interpreter runs the
    # custom kernel, about a second per two million elements.
    cpu_shapes: Mapping[str, tuple[Shape, ...]] = field(default_factory=dict)
    # A shape whose launch is the largest on some grid axis: its grids are
    # checked against CUDA's limits on the CPU, without running a program.
    grid_probe: Shape | None = None
    # The bandwidth probe matching the kernel's read/write mix: "copy" (reads
    # about what it writes) or "read" (a reduction: reads, writes almost
    # nothing). A read-only stream can beat a copy, so F uses the match.
    stream: str = "copy"

    def __post_init__(self):
        if self.stream not in STREAMS:
            raise ValueError(f"{self.name}: stream must be one of {STREAMS}")

    def aligned(self, shape: Shape, itemsize: int) -> bool:
        """Whether every extent of the shape spans a multiple of 16 bytes.

        An extent that does not (an odd length in bf16) costs the kernel its
        128-bit loads and stores; such shapes are labelled and kept out of
        goal verdicts. Conservative: it looks at every extent, not only the
        contiguous one."""
        return all(
            (value * itemsize) % 16 == 0
            for value in shape.values()
            if isinstance(value, int) and not isinstance(value, bool)
        )

    def shapes_for(self, profile: str, device_kind: str) -> tuple[Shape, ...]:
        """The shapes one profile runs on "cpu" or "cuda"."""
        if device_kind == "cpu" and profile in self.cpu_shapes:
            return tuple(self.cpu_shapes[profile])
        return tuple(self.shapes.get(profile, ()))

    def catalog_entry(self) -> dict[str, Any]:
        """The plain data the pages may read (results/kernels.json)."""
        return {
            "title": self.title,
            "launcher": self.launcher.__name__,
            "metric": self.metric,
            "dtype_cuda": self.dtype_cuda,
            "dtype_cpu": self.dtype_cpu,
            "eager_is": self.eager_is,
            "r_baselines": list(self.r_baselines),
            "providers": ["eager", "compile", *self.baselines, "triton"],
            "shapes": {
                device: {
                    profile: [
                        {"shape": dict(shape), "text": self.shape_text(shape)}
                        for shape in self.shapes_for(profile, device)
                    ]
                    for profile in PROFILES
                }
                for device in ("cuda", "cpu")
            },
            "goals": [
                {
                    "regime": goal.regime,
                    "must": [_target_data(t) for t in goal.must],
                    "stretch": [_target_data(t) for t in goal.stretch],
                }
                for goal in self.goals
            ],
        }


def _target_data(target: Target) -> dict[str, Any]:
    return {
        "metric": target.metric,
        "at_least": target.at_least,
        "shape": dict(target.shape) if target.shape is not None else None,
        "note": target.note,
    }


def discover() -> dict[str, Descriptor]:
    """Every kernel module's DESCRIPTOR, by name, in file-name order. A new
    kernel is found by its file alone: nothing else lists it."""
    import importlib
    from pathlib import Path

    found = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        # Only modules that declare a descriptor; helpers (this file,
        # inputs.py, launches.py) are skipped without being imported.
        if "\nDESCRIPTOR = " not in path.read_text(encoding="utf-8"):
            continue
        module = importlib.import_module(f"kernels.{path.stem}")
        found[path.stem] = module.DESCRIPTOR
    return found
