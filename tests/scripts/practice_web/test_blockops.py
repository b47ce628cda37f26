"""Loads, stores, reductions and dot on blocks."""

import pytest

from scripts.practice_web import language as tl
from scripts.practice_web import tensor
from scripts.practice_web.blocks import Fault
from scripts.practice_web.runtime import argument


def pointer(t):
    return argument("x", t)


def test_a_lane_outside_the_storage_faults_and_a_masked_one_does_not():
    x = tensor.tensor([1.0, 2.0, 3.0], dtype=tensor.float32)
    offs = tl.arange(0, 4)
    got = tl.load(pointer(x) + offs, mask=offs < 3, other=-1.0)
    assert got.data == [1.0, 2.0, 3.0, -1.0]
    with pytest.raises(Fault, match="outside every tensor"):
        tl.load(pointer(x) + offs)


def test_reductions_scans_and_dot():
    x = tl.arange(0, 4).to(tl.float32).reshape(2, 2)
    assert tl.sum(x, axis=0).data == [2.0, 4.0] and tl.max(x, axis=1).data == [1.0, 3.0]
    assert tl.cumsum(tl.arange(0, 4), axis=0).data == [0, 1, 3, 6]
    assert tl.dot(x, x, input_precision="ieee").data == [2.0, 3.0, 6.0, 11.0]
    assert tl.trans(x).data == [0.0, 2.0, 1.0, 3.0]
