"""The page's Triton language on its own: rounding, wrapping, broadcasting,
reductions, refusals (the equivalence with Triton's interpreter is
test_grade.py)."""

from __future__ import annotations

import math

import pytest

from scripts.practice_web import language as tl
from scripts.practice_web import runtime, tensor
from scripts.practice_web.blocks import Block
from scripts.practice_web.language import OutsideSubset

KERNEL = """
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, {expr}, mask=offs < n)

def run(x):
    k[(1,)](x, x.numel(), BLOCK=8)
"""


def run(expr: str, values, dtype=tensor.float32):
    x = tensor.tensor(values, dtype=dtype)
    runtime.load(KERNEL.format(expr=expr))["run"](x)
    return x.tolist()


def test_float32_rounds_after_every_operation():
    # 0.1 + 0.2 in float32 is 0.30000001192092896, not float64's 0.30000000000000004
    assert run("x + 0.2", [0.1]) == [0.30000001192092896]
    assert run("x * 3.0", [3e38]) == [math.inf]


def test_int32_wraps_as_the_hardware_does():
    assert run("x * 2", [2**30], tensor.int32) == [-(2**31)]
    assert run("(x.to(tl.int64) * 2).to(tl.int32)", [2**30], tensor.int32) == [-(2**31)]
    assert run("x // 2", [-7], tensor.int32) == [-3]  # C division, toward zero


def test_masked_lanes_load_other_and_broadcasting_follows_numpy():
    x = Block([1.0, 2.0], (2,), tl.float32)
    y = x[:, None] + x[None, :]
    assert y.shape == (2, 2) and y.data == [2.0, 3.0, 3.0, 4.0]
    assert tl.sum(y, axis=1).data == [5.0, 7.0]
    assert tl.max(y, axis=0).data == [3.0, 4.0]


def test_an_unknown_name_never_computes_something_else():
    with pytest.raises(OutsideSubset, match=r"^tl\.histogram is outside"):
        run("tl.histogram(x, 4)", [1.0])
