"""Record what every Triton launch really used: kernel, constexprs, options,
grid. Tests compare it with a descriptor's ``launch_config`` and with CUDA's
grid limits; the benchmark runner stores it in the result file.

Works under the interpreter (CPU) and on a GPU, with Triton 3.6 and 3.8:
``intercept`` wraps ``run`` of ``JITFunction`` and ``InterpretedFunction``,
the two ways a ``kernel[grid](...)`` call is executed. It is the project's
one launch interceptor; the evaluator's worker (``scripts/qualify/worker.py``)
extends it with its own checks.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kernels.descriptor import Launch

#: Constexprs that follow the tensors' device, not the dtype and shape: the
#: launchers pass them beside the config (CPU tensors run interpreted).
DEVICE_CONSTEXPRS = ("INTERPRETED",)

#: CUDA's largest grid, per axis (x, y, z).
GRID_LIMITS = (2**31 - 1, 65535, 65535)
_OPTIONS = ("num_warps", "num_stages")


@dataclass
class Recorded:
    """One launch as it happened."""

    launch: Launch
    grid: tuple[int, int, int] | None


@dataclass
class LaunchLog:
    records: list[Recorded] = field(default_factory=list)

    def launches(self) -> list[Launch]:
        """Distinct launches, in first-seen order (a loop that launches one
        kernel several times with one config counts once)."""
        seen: list[Launch] = []
        for record in self.records:
            if record.launch not in seen:
                seen.append(record.launch)
        return seen


def without_device_constexprs(launches: list[Launch]) -> list[Launch]:
    """Launches as a descriptor's launch_config states them."""
    return [
        Launch(
            launch.kernel,
            {k: v for k, v in launch.constexprs.items() if k not in DEVICE_CONSTEXPRS},
            launch.num_warps,
            launch.num_stages,
        )
        for launch in launches
    ]


def grid_violation(grid: tuple[int, ...]) -> str | None:
    """Why a grid breaks CUDA's limits, or None."""
    for axis, (size, limit) in enumerate(zip(grid, GRID_LIMITS, strict=False)):
        if size > limit:
            return f"grid axis {axis} has {size} programs; CUDA allows {limit}"
    return None


def _bind(fn, args, kwargs) -> dict[str, Any]:
    signature = inspect.signature(fn)
    named = {k: v for k, v in kwargs.items() if k in signature.parameters}
    bound = signature.bind_partial(*args, **named)
    bound.apply_defaults()
    return dict(bound.arguments)


def _constexpr_names(fn) -> list[str]:
    names = []
    for name, param in inspect.signature(fn).parameters.items():
        note = param.annotation
        if note is not inspect.Parameter.empty and "constexpr" in str(note):
            names.append(name)
    return names


def _grid(grid, arguments, kwargs) -> tuple[int, int, int] | None:
    try:
        if callable(grid):
            grid = grid({**kwargs, **arguments})
        sizes = tuple(int(g) for g in grid)
    except Exception:  # a grid we cannot evaluate is recorded as unknown
        return None
    return sizes + (1,) * (3 - len(sizes))


def launch_grid(kernel, grid, args, kwargs) -> tuple[int, int, int] | None:
    """The grid a launch will use (a callable grid receives the bound
    arguments, as Triton gives it); None if it cannot be worked out."""
    try:
        arguments = _bind(kernel.fn, args, kwargs)
    except Exception:
        return None
    return _grid(grid, arguments, kwargs)


class SkipPrograms(BaseException):  # noqa: N818  (a signal, not an error)
    """Raised inside a launch to end it without running its programs (the
    launch returns None). A BaseException, so `except Exception` in a
    kernel's caller cannot swallow it."""


def kernel_classes() -> list[tuple[type, bool]]:
    """(class, runs interpreted) for each way `kernel[grid](...)` runs."""
    from triton.runtime.jit import JITFunction

    classes = [(JITFunction, False)]
    with contextlib.suppress(ImportError):
        from triton.runtime.interpreter import InterpretedFunction

        classes.append((InterpretedFunction, True))
    return classes


def intercept(before: Callable[..., None]) -> Callable[[], None]:
    """Call ``before(kernel, args, kwargs, grid, interpreted)`` ahead of every
    Triton launch (warm-ups excluded); it may raise to stop the launch, or
    raise SkipPrograms to skip it. Returns the function that undoes it. The
    one interceptor: record_launches below and the evaluator's worker both
    use it."""
    originals = {cls: (cls.run, interpreted) for cls, interpreted in kernel_classes()}

    def wrap(original, interpreted):
        def run(self, *args, grid, warmup, **kwargs):
            if warmup:
                return original(self, *args, grid=grid, warmup=warmup, **kwargs)
            try:
                before(self, args, kwargs, grid, interpreted)
                return original(self, *args, grid=grid, warmup=warmup, **kwargs)
            except SkipPrograms:
                return None

        return run

    for cls, (original, interpreted) in originals.items():
        cls.run = wrap(original, interpreted)

    def undo() -> None:
        for cls, (original, _) in originals.items():
            cls.run = original

    return undo


def _hashable(value: Any) -> Any:
    return value if isinstance(value, bool | int | float | str) else repr(value)


@contextlib.contextmanager
def record_launches() -> Iterator[LaunchLog]:
    """Inside the block, every Triton launch is appended to the log."""
    log = LaunchLog()

    def before(kernel, args, kwargs, grid, interpreted):
        fn = kernel.fn
        arguments = _bind(fn, args, kwargs)
        constexprs = {
            name: _hashable(arguments[name])
            for name in _constexpr_names(fn)
            if name in arguments
        }
        launch = Launch(
            kernel=fn.__name__,
            constexprs=constexprs,
            num_warps=kwargs.get("num_warps", 4),
            num_stages=kwargs.get("num_stages"),
        )
        log.records.append(Recorded(launch, _grid(grid, arguments, kwargs)))

    undo = intercept(before)
    try:
        yield log
    finally:
        undo()
