"""``triton`` for the page, and the loader that runs a learner's file on it.

:func:`load` executes a file's source with ``torch``, ``triton`` and
``triton.language`` bound to this package's pure-Python subset (whatever the
interpreter has installed: under CPython the real ones stay untouched).
``@triton.jit`` returns a :class:`Kernel`; ``kernel[grid](...)`` runs every
program of the grid in turn, as Triton's interpreter does: a tensor argument
becomes a pointer into its storage at the view's offset, an int an int32
(int64 past its range), a float a float32, a ``tl.constexpr`` parameter its
Python value.
"""

from __future__ import annotations

import builtins
import inspect
import itertools
import math
import types

from scripts.practice_web import blocks, language, races, tensor
from scripts.practice_web.blocks import (
    Block,
    OutsideSubset,
    Pointer,
    constexpr,
    pointer_to,
)
from scripts.practice_web.dtypes import of_python, rounder

#: Programs one launch may run before the page calls it a hang.
MAX_PROGRAMS = 1 << 16
#: Modules a learner's file may import; anything else is refused by name.
PLAIN_MODULES = ("math", "typing", "__future__", "functools", "dataclasses")
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


class Kernel:
    """A ``@triton.jit`` function."""

    def __init__(self, fn, **options):
        self.fn = fn
        self.__name__ = fn.__name__
        self.signature = inspect.signature(fn)
        self.constexprs = {
            name for name, p in self.signature.parameters.items()
            if _is_constexpr(p.annotation)
        }  # fmt: skip

    def __call__(self, *args, **kwargs):  # a @jit helper called from a kernel
        return self.fn(*args, **kwargs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.launch(grid, args, kwargs)

    def launch(self, grid, args, kwargs) -> None:
        for option in LAUNCH_OPTIONS:
            kwargs.pop(option, None)
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        meta = {
            n: _plain(v) for n, v in bound.arguments.items() if n in self.constexprs
        }
        if callable(grid):
            grid = grid(meta)
        grid = tuple(
            int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid,))
        )
        if not 1 <= len(grid) <= 3 or min(grid, default=0) < 0:
            raise ValueError(f"a grid must be 1 to 3 whole numbers, got {grid}")
        if math.prod(grid) > MAX_PROGRAMS:
            raise OutsideSubset(f"a grid of {math.prod(grid)} programs")
        values = {
            name: _plain(value) if name in self.constexprs else argument(name, value)
            for name, value in bound.arguments.items()
        }  # fmt: skip
        full = grid + (1,) * (3 - len(grid))
        record = races.Record(self.__name__, _pointers(values)) \
            if math.prod(full) > 1 else None  # fmt: skip
        saved = blocks.current
        blocks.current = blocks.Launch(full, record)
        try:
            for pid in itertools.product(*(range(g) for g in full)):
                blocks.current.pid = pid
                self.fn(**values)
        finally:
            blocks.current = saved
        race = record and races.first_race(record)
        if race:
            blocks.events.append(("race", race))

    def run(self, *args, grid, **kwargs):
        return self.launch(grid, args, kwargs)


def _pointers(values: dict) -> list:
    """(parameter, storage, first element) of each pointer argument."""
    return [(name, v.memory, v.data[0]) for name, v in values.items()
            if isinstance(v, Block) and isinstance(v.dtype, Pointer)]  # fmt: skip


def _is_constexpr(annotation) -> bool:
    if annotation is constexpr or isinstance(annotation, constexpr):
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


def _plain(value):
    return value.value if isinstance(value, constexpr) else value


def argument(name: str, value):
    """A launch argument as the kernel's parameter sees it."""
    if isinstance(value, tensor.Tensor):
        dtype = value.dtype
        return Block([value.offset], (), pointer_to(dtype), value.storage, dtype)
    if value is None or isinstance(value, (Block, str)):
        return value
    if isinstance(value, (bool, int, float)):
        dtype = of_python(value)
        return Block(rounder(dtype)([value]), (), dtype)
    raise OutsideSubset(f"passing {type(value).__name__} to a kernel (argument {name})")


def jit(fn=None, **options):
    if fn is None:
        return lambda f: Kernel(f, **options)
    return Kernel(fn, **options)


def autotune(*args, **kwargs):
    raise OutsideSubset("@triton.autotune")


def heuristics(*args, **kwargs):
    raise OutsideSubset("@triton.heuristics")


def cdiv(a, b) -> int:
    return -(-int(a) // int(b))


def next_power_of_2(n) -> int:
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _triton_module() -> types.ModuleType:
    module = types.ModuleType("triton", "Triton, the subset this page runs")
    for name in ("jit", "autotune", "heuristics", "cdiv", "next_power_of_2"):
        setattr(module, name, globals()[name])
    module.language = language
    module.__version__ = "subset"

    def missing(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise OutsideSubset(f"triton.{name}")

    module.__getattr__ = missing
    return module


triton = _triton_module()
MODULES = {"torch": tensor, "triton": triton, "triton.language": language}


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if level:
        raise OutsideSubset("a relative import")
    if name in MODULES:
        return (
            MODULES[name]
            if fromlist or "." not in name
            else MODULES[name.split(".")[0]]
        )
    if name.split(".")[0] in PLAIN_MODULES:
        return builtins.__import__(name, globals, locals, fromlist, level)
    raise OutsideSubset(f"import {name}")


def load(source: str, filename: str = "kernel.py") -> dict:
    """The namespace of the learner's file, run on the subset."""
    namespace = {
        "__name__": "learner",
        "__file__": filename,
        "__builtins__": {**vars(builtins), "__import__": _import},
    }
    exec(compile(source, filename, "exec"), namespace)  # the learner's own code
    return namespace
