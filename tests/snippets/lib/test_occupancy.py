"""The compute capability 9.0 residency model (snippets/lib/occupancy.py)
against hand counts."""

import pytest

from snippets.lib import occupancy as occ


def brute_force_blocks(registers, num_warps, shared_bytes):
    """Add blocks one at a time until some limit is exceeded."""
    per_warp = -(-registers * 32 // 256) * 256
    per_block_shared = -(-(shared_bytes + 1024) // 128) * 128
    blocks = 0
    while True:
        n = blocks + 1
        if (
            n * num_warps * 32 > 2048
            or n * num_warps * per_warp > 65536
            or n * per_block_shared > 228 * 1024
            or n > 32
        ):
            return blocks
        blocks = n


@pytest.mark.parametrize(
    "registers,num_warps,shared",
    [(206, 8, 147456), (40, 4, 16384), (26, 4, 0), (255, 1, 0), (33, 16, 100000),
     (1, 1, 0), (96, 4, 32768), (232, 4, 65536)],
)  # fmt: skip
def test_residency_matches_brute_force(registers, num_warps, shared):
    assert occ.residency(registers, num_warps, shared).blocks == brute_force_blocks(
        registers, num_warps, shared
    )


def test_register_granularity_and_shared_reserve_bind():
    # 40 registers * 32 = 1280 per warp, already a multiple of 256; 41 rounds
    # 1312 up to 1536 and loses blocks.
    assert occ.residency(40, 4, 0).by_registers == 12
    assert occ.residency(41, 4, 0).by_registers == 10


def test_registers_are_placed_per_sub_partition():
    # cuda_occupancy.h: (65536 / 4) // regs_per_warp warps per quarter.
    assert occ.register_warps(206) == 8  # the whole file would say 9
    assert occ.register_warps(128) == 16
    assert occ.register_warps(255) == 8  # 8,192 per warp: 2 per quarter
    assert occ.register_warps(24) == 84  # the 64-warp thread limit binds first
    # 114 KB each fits twice without the reserve, once with it.
    assert occ.residency(32, 4, 114 * 1024).by_shared == 1
    assert occ.residency(32, 4, 113 * 1024).by_shared == 2


def test_limiter_names_every_binding_limit():
    assert occ.residency(206, 8, 147456).limiter == "registers and shared memory"
    assert occ.residency(26, 4, 0).limiter == "registers and threads"
