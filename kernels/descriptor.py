"""What every kernel module declares about itself, in one place.

Each ``kernels/<op>.py`` ends with ``DESCRIPTOR = Descriptor(...)``. The
benchmark runner, the artifact builder, the evaluator's cases and the kernel
catalog (``results/kernels.json``, which the pages read) all derive from it;
none of them retypes a configuration.

The launch configuration is a function of dtype and shape, and the launcher
calls the same function: ``tests/kernels/test_descriptor.py`` records what
every launch really used and fails when the two differ.

Declarative: a benchmark shape's keys are the names of the kernel's napkin-math
parameters, so a descriptor holds the kernel's own functions and calls them
with the shape spread out as keywords: ``bytes_moved(**shape, itemsize=...)``,
``flops(**shape)``, ``launch_config(dtype, **shape)``. Each function receives
the keys it names and no others (``flops`` of attention takes ``causal``, its
``bytes_moved`` does not; only ``launch_config`` takes ``version``), and a key
it names but the shape lacks is a TypeError at the call, not a silent default.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kernels.profiles import PROFILES

Shape = Mapping[str, Any]


@functools.cache
def _parameters(fn: Callable) -> frozenset[str] | None:
    """The keyword names ``fn`` accepts; None when it takes ``**kwargs``."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind is not p.VAR_POSITIONAL)


def call_with_shape(fn: Callable, shape: Shape, *args: Any, **extra: Any) -> Any:
    """``fn(*args, **shape, **extra)``, passing only the shape keys ``fn`` names."""
    names = _parameters(fn)
    keys = {k: v for k, v in shape.items() if names is None or k in names}
    return fn(*args, **keys, **extra)


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
    """One compilation, for each target, at the configuration the launcher
    would use for ``dtype`` and ``shape``.

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
    # The architectures it is compiled for (None: every target the builder
    # knows); a build the compiler cannot do for a target says why in a
    # comment beside it.
    targets: tuple[str, ...] | None = None

    def built_for(self, target: str) -> bool:
        return self.targets is None or target in self.targets


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

    The benchmark shape is a dict such as ``{"rows": 3, "cols": 1031}``
    whose keys the kernel's functions name; ``error_bound`` gets float64
    copies of the inputs, the float64 truth, the dtype and the shape, and
    returns the elementwise bound ``|out - truth| <= bound``."""

    name: str  # the module's name under kernels/
    title: str  # "residual add + ReLU", as tables print it
    launcher: Callable
    reference: Callable
    metric: str  # "bandwidth" or "flops": what the fraction F uses
    shapes: Mapping[str, tuple[Shape, ...]]  # profile -> shapes
    # The kernel's own functions, called with the shape's keys (see above).
    operands: Callable  # (**shape) -> the shape of every input tensor
    count_bytes: Callable  # bytes_moved(**shape, itemsize=...) -> int
    count_flops: Callable  # flops(**shape) -> int
    configure: Callable  # launch_config(dtype, **shape) -> [Launch], in order
    error_bound: Callable  # (inputs64, truth64, dtype, shape) -> tensor
    # "{rows}×{cols}" (str.format of the shape), or a function of the shape.
    shape_format: str | Callable
    dtype_cuda: str = "bfloat16"
    dtype_cpu: str = "float32"
    # Shape keys the launcher and the reference also take as keywords.
    call_keys: tuple[str, ...] = ()
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

    def bytes_moved(self, shape: Shape, itemsize: int) -> int:
        """The least traffic of one call at this shape (napkin math)."""
        return call_with_shape(self.count_bytes, shape, itemsize=itemsize)

    def flops(self, shape: Shape) -> int:
        """The arithmetic of one call at this shape."""
        return call_with_shape(self.count_flops, shape)

    def launch_config(self, dtype, shape: Shape) -> list:
        """The launches the launcher makes for contiguous inputs of this
        dtype and shape (a shape's ``version`` picks an older version)."""
        return call_with_shape(self.configure, shape, dtype)

    def make_inputs(self, shape: Shape, dtype, device, seed: int) -> tuple:
        """Random inputs with no zeros, one tensor per operand."""
        from kernels.inputs import nonzero_inputs  # torch: only when called

        return nonzero_inputs(
            call_with_shape(self.operands, shape), dtype, device, seed
        )

    def shape_text(self, shape: Shape) -> str:
        """How tables print the shape: "32768×4096"."""
        if callable(self.shape_format):
            return self.shape_format(shape)
        return self.shape_format.format(**shape)

    def call_kwargs(self, shape: Shape) -> dict[str, Any]:
        """The keywords besides the tensors that the launcher takes."""
        return {key: shape[key] for key in self.call_keys}

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
                    "applies_to": self.goal_functions(goal),
                }
                for goal in self.goals
            ],
        }

    def goal_functions(self, goal: Goal) -> list[str]:
        """The kernel functions a measurement against ``goal`` times: what
        the launcher runs at the goal's shapes (its targets', else the quick
        profile's) in the CUDA dtype. A new version that the launcher does
        not pick yet is not among them."""
        import torch

        shapes = [t.shape for t in (*goal.must, *goal.stretch) if t.shape is not None]
        shapes = shapes or list(self.shapes.get("quick", ()))
        dtype = getattr(torch, self.dtype_cuda)
        names = {
            launch.kernel for s in shapes for launch in self.launch_config(dtype, s)
        }
        return sorted(names)


def _target_data(target: Target) -> dict[str, Any]:
    return {
        "metric": target.metric,
        "at_least": target.at_least,
        "shape": dict(target.shape) if target.shape is not None else None,
        "note": target.note,
    }


def discover() -> dict[str, Descriptor]:
    """Every kernel's DESCRIPTOR, by name, in name order. A kernel is a
    module ``kernels/<op>.py`` or a package ``kernels/<op>/`` whose
    ``describe.py`` declares it; it is found by its files alone: nothing
    else lists it."""
    return {
        name: kernel_module(name, "describe").DESCRIPTOR for name in declared_kernels()
    }


def kernel_module(name: str, part: str = "versions"):
    """The module of kernel ``name`` that holds ``part``: ``"versions"``, its
    kernels, launchers and napkin math, or ``"describe"``, its DESCRIPTOR.
    A one-file kernel ``kernels/<op>.py`` holds both; a package holds each
    in ``kernels/<op>/<part>.py`` (its ``__init__.py`` is only its map).
    The one rule for where a kernel's code lives: callers ask here."""
    import importlib

    if part not in ("versions", "describe"):
        raise ValueError(f"kernel part {part!r}: not 'versions' or 'describe'")
    if not name.isidentifier():
        raise ValueError(f"kernel {name!r}: not a module name")
    package = importlib.import_module(f"kernels.{name}")
    if not hasattr(package, "__path__"):
        return package
    return importlib.import_module(f"kernels.{name}.{part}")


def declared_kernels(here=None) -> list[str]:
    """The names of the kernels under ``here`` (default: this package), in
    name order, found by reading files, importing nothing: a module
    ``<op>.py`` or a package's ``<op>/describe.py`` that declares
    ``DESCRIPTOR``. Helpers (this file, inputs.py, launches.py) declare none."""
    from pathlib import Path

    here = Path(here) if here is not None else Path(__file__).parent
    candidates = {path.stem: path for path in here.glob("*.py")}
    candidates.update({path.parent.name: path for path in here.glob("*/describe.py")})
    return sorted(
        name
        for name, path in candidates.items()
        if "\nDESCRIPTOR = " in path.read_text(encoding="utf-8")
    )
