"""The loader and launcher: what is outside the subset is refused in one line
naming it; a launch runs every program of the grid."""

from __future__ import annotations

import pytest

from scripts.practice_web import runtime, tensor
from scripts.practice_web.language import OutsideSubset


@pytest.mark.parametrize(
    "source, construct",
    [
        ("import numpy", "import numpy"),
        ("import triton.language as tl\ntl.atomic_cas", "tl.atomic_cas"),
        ("import triton\n@triton.autotune(configs=[], key=[])\ndef f(): pass",
         "@triton.autotune"),
        ("import torch\ntorch.randn(3)", "torch.randn"),
    ],
)  # fmt: skip
def test_what_is_outside_the_subset_is_refused_by_name(source, construct):
    with pytest.raises(OutsideSubset) as found:
        runtime.load(source)
    message = str(found.value)
    assert message.startswith(construct) and "run it locally" in message
    assert "\n" not in message


def test_a_launch_runs_every_program_of_a_2d_grid():
    source = """
import triton
import triton.language as tl

@triton.jit
def k(out_ptr):
    pid = tl.program_id(0) * tl.num_programs(1) + tl.program_id(1)
    tl.store(out_ptr + pid, pid)

def run(out):
    k[(3, 2)](out)
"""
    out = tensor.full((6,), -1, tensor.int32)
    runtime.load(source)["run"](out)
    assert out.tolist() == [0, 1, 2, 3, 4, 5]
    assert runtime.next_power_of_2(100) == 128 and runtime.cdiv(257, 256) == 2
