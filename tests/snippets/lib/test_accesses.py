"""snippets/lib/accesses.py: the recorder sees what each program touched,
and what each picture claims is checked against a fresh recording."""

import torch
import triton
import triton.language as tl

from snippets.lib import accesses


@triton.jit
def _copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_the_recorder_sees_every_program_and_its_mask():
    x, out = torch.arange(100, dtype=torch.float32), torch.empty(100)
    with accesses.record({"x": x, "out": out}) as seen:
        _copy[(2,)](x, out, 100, BLOCK=64)
    assert [a.program[0] for a in seen["x"]] == [0, 1]
    assert {a.kind for a in seen["out"]} == {"store"}
    assert seen["out"][1].active.count(False) == 28  # 128 lanes, 100 elements
    assert accesses.owners(seen["out"], 100)[63:65] == [0, 1]
    assert accesses.sectors_per_warp(seen["x"][0]) == [4, 4]  # 128 B a warp
    assert accesses.sectors_per_warp(seen["x"][1]) == [4, 1]  # 36 lanes live


def test_the_naive_transpose_stores_strided_and_the_tiled_one_does_not():
    fresh = accesses.transposes()
    naive, tiled = fresh["naive"]["stores"], fresh["tiled"]["stores"]
    assert naive["sectors_per_warp"] == 32 > naive["ideal"]  # one per lane
    assert tiled["sectors_per_warp"] == tiled["ideal"] == 4  # contiguous
    assert fresh["naive"]["loads"]["sectors_per_warp"] == 4  # reads are fine
    # The committed record the pages draw from is what the kernels do now.
    assert accesses.load_record() == fresh


def test_the_picture_and_its_facts_come_from_the_record():
    assert len(accesses.transpose_owners_figure().axes) == 2
    facts = accesses.facts()
    assert (
        facts["naive.stores.sectors"] == "32" and facts["tiled.stores.sectors"] == "4"
    )


def test_a_mask_of_int32_ones_and_zeros_is_read_lane_by_lane():
    """The harness's race check met masks that reach the interpreter as
    int32 0s and 1s; indexed as they came, such a mask picks lanes 0 and 1
    again and again instead of the live lanes."""
    import numpy as np

    class Handle:  # what the interpreter hands its builder: a .data array
        def __init__(self, data):
            self.data = data

    mask, ptrs = Handle(np.array([1, 0, 1, 1], np.int32)), Handle(np.arange(4) * 4)
    addresses = np.asarray(ptrs.data)
    assert addresses[accesses.lanes_on(mask, ptrs)].tolist() == [0, 8, 12]
    assert addresses[np.asarray(mask.data)].tolist() != [0, 8, 12]  # the bug
