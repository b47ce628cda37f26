"""An exercise's cases as the page builds them: inputs drawn from the CLI's
seed by torch's generator re-done in pure Python (``rng.py``), so they are
the CLI's inputs bit for bit; each input inside guard elements, ``out``
inside guards of the sentinel fill, as the CLI's child places them.
"""

from __future__ import annotations

import math
import struct

from scripts.practice.exercises import Case, Exercise, Input
from scripts.practice_web import arith, dtypes
from scripts.practice_web.rng import Generator
from scripts.practice_web.tensor import Storage, Tensor
from scripts.qualify.learner_cases import GUARD, SENTINEL  # the CLI's own

#: An exercise runs on the page when every input of every case fits this.
PAGE_BYTES = 64 << 20
GUARD_FILL = {"float32": math.nan, "int32": 2**30, "uint8": 0xA5}


def sentinel_value(dtype: dtypes.DType):
    raw = bytes([SENTINEL]) * dtype.itemsize
    if dtype is dtypes.float32:
        return struct.unpack("<f", raw)[0]
    return int.from_bytes(raw, "little", signed=dtype.kind == "int")


def input_bytes(spec: Input) -> int:
    from scripts.practice.exercises import HUGE

    count = HUGE if spec.fill == "window" else arith.numel(spec.shape)
    return count * dtypes.BY_NAME[spec.dtype].itemsize


def runs_on_page(exercise: Exercise) -> bool:
    """Whether every case's inputs fit in the page's memory budget."""
    return all(input_bytes(s) <= PAGE_BYTES for c in exercise.cases for s in c.inputs)


def base_shape(spec: Input) -> tuple[int, ...]:
    if spec.view == "transposed":
        return tuple(reversed(spec.shape))
    if spec.view == "step2":
        return (*spec.shape[:-1], 2 * spec.shape[-1])
    return spec.shape


def draw(spec: Input, rng: Generator) -> list:
    """The base storage's values, as the CLI's ``draw`` makes them."""
    count = arith.numel(base_shape(spec))
    if spec.fill in ("counts", "window"):
        return rng.randint(127 if spec.dtype == "uint8" else 4, count)
    values = rng.randn(count)
    if spec.fill == "positive":
        values = [abs(v) + 0.01 for v in values]
    elif spec.fill == "large":
        values = [v * 30 + 100 for v in values]
    elif spec.fill == "nan":
        values = [math.nan if i % 7 == 0 else v for i, v in enumerate(values)]
    return dtypes.rounder(dtypes.BY_NAME[spec.dtype])(values)


def build(case: Case, seed: int) -> dict[str, list]:
    rng = Generator(seed)
    return {spec.name: draw(spec, rng) for spec in case.inputs}


def guarded(name: str, values: list, spec: Input) -> Tensor:
    """The learner's view of an input inside guard elements either side."""
    fill = GUARD_FILL[spec.dtype]
    storage = Storage([fill] * GUARD + list(values) + [fill] * GUARD,
                      dtypes.BY_NAME[spec.dtype], name)  # fmt: skip
    storage.span = (GUARD, GUARD + len(values))
    return view_of(Tensor(storage, base_shape(spec), None, GUARD), spec)


def view_of(base: Tensor, spec: Input) -> Tensor:
    if spec.view == "transposed":
        return base.t()
    if spec.view == "step2":
        return base[..., ::2]
    return base


def fresh_out(case: Case) -> Tensor:
    """out between GUARD sentinel elements either side."""
    dtype = dtypes.BY_NAME[case.out_dtype]
    count = arith.numel(case.out_shape)
    storage = Storage([sentinel_value(dtype)] * (count + 2 * GUARD), dtype, "out")
    storage.span = (GUARD, GUARD + count)
    return Tensor(storage, case.out_shape, None, GUARD)


def float64_view(values: list, spec: Input) -> Tensor:
    """An input as the reference sees it: float64, the learner's view."""
    base = Tensor(Storage([float(v) for v in values], dtypes.float64), base_shape(spec))
    return view_of(base, spec).contiguous()
