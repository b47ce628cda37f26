"""Shapes, broadcasting and IEEE arithmetic on flat lists, shared by the
tensor type (the wrappers' torch) and the block type (the kernels' tl).

Python raises where IEEE gives inf or NaN (1.0 / 0.0, math.exp(1000),
math.sqrt(-1)); the functions here give what the hardware does. Sums follow
numpy's pairwise order, the order Triton's interpreter sums a block in, so a
float32 sum has the interpreter's bits.
"""

from __future__ import annotations

import math
import operator

INF, NAN = math.inf, math.nan


def numel(shape) -> int:
    count = 1
    for extent in shape:
        count *= extent
    return count


def strides_of(shape) -> tuple[int, ...]:
    """Row-major strides, in elements."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def offsets(shape, strides, start: int = 0) -> list[int]:
    """Every element's place in storage, in row-major order."""
    places = [start]
    for extent, stride in zip(shape, strides, strict=True):
        places = [p + i * stride for p in places for i in range(extent)]
    return places


def broadcast_shape(a, b) -> tuple[int, ...]:
    """numpy's rule; ValueError names both shapes when they do not fit."""
    a, b = tuple(a), tuple(b)
    width = max(len(a), len(b))
    a, b = (1,) * (width - len(a)) + a, (1,) * (width - len(b)) + b
    shape = []
    for x, y in zip(a, b, strict=True):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {list(a)} and {list(b)} do not broadcast")
        shape.append(max(x, y) if 0 not in (x, y) else 0)
    return tuple(shape)


def expand(data: list, shape, target) -> list:
    """A row-major list of `shape` broadcast to `target`."""
    shape, target = tuple(shape), tuple(target)
    if shape == target:
        return data
    padded = (1,) * (len(target) - len(shape)) + shape
    strides = [
        0 if e == 1 else s for e, s in zip(padded, strides_of(padded), strict=True)
    ]
    return [data[i] for i in offsets(target, strides)]


def div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)


def exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def exp2(x: float) -> float:
    try:
        return 2.0**x
    except OverflowError:
        return INF


def log(x: float) -> float:
    if x == 0:
        return -INF
    if x < 0 or x != x:
        return NAN
    return math.log(x) if x != INF else INF


def sqrt(x: float) -> float:
    if x != x or x < 0:
        return NAN
    return math.sqrt(x)


def maximum(a, b):
    """NaN-propagating, as np.maximum and torch.maximum."""
    if a != a or b != b:
        return NAN
    return a if a >= b else b


def minimum(a, b):
    if a != a or b != b:
        return NAN
    return a if a <= b else b


def int_div(a: int, b: int) -> int:
    """C division, toward zero; by zero gives 0 as the interpreter does."""
    if b == 0:
        return 0
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def int_mod(a: int, b: int) -> int:
    """C remainder: the sign of the dividend."""
    if b == 0:
        return 0
    return a - int_div(a, b) * b


def matmul(a: list, b: list, m: int, k: int, n: int) -> list[float]:
    """Row-major (m, k) @ (k, n), each element the exact sum of its
    products rounded once (a float64 answer)."""
    rows = [a[i * k : (i + 1) * k] for i in range(m)]
    columns = [b[c::n] for c in range(n)]
    return [math.fsum(map(operator.mul, row, col)) for row in rows for col in columns]


def pairwise_sum(values: list, rounding) -> float:
    """numpy's pairwise sum (eight partials up to 128 terms, halves beyond),
    each addition rounded by `rounding` (a float -> float)."""
    n = len(values)
    if n < 8:
        total = -0.0
        for v in values:
            total = rounding(total + v)
        return total
    if n <= 128:
        partial = list(values[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                partial[j] = rounding(partial[j] + values[i + j])
            i += 8
        r = [rounding(partial[j] + partial[j + 1]) for j in (0, 2, 4, 6)]
        total = rounding(rounding(r[0] + r[1]) + rounding(r[2] + r[3]))
        for v in values[i:]:
            total = rounding(total + v)
        return total
    half = n // 2
    half -= half % 8
    low = pairwise_sum(values[:half], rounding)
    return rounding(low + pairwise_sum(values[half:], rounding))
