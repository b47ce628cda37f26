"""How many blocks of a kernel fit on one H200 SM, and why.

Shown on docs/kernels/work-mapping/threads-blocks-warps-waves.md. The
compute capability 9.0 limits and the residency model (a pencil model) are
the shared lesson library's, snippets/lib/occupancy.py; this file holds the
page's calculators, its table of limits and its named values. Standard
library only (the page turns `occupancy` and `waves` into in-browser
calculators).
"""

from __future__ import annotations

from kernels.devices import H200
from snippets.lib.occupancy import (
    MAX_BLOCKS_PER_SM,
    MAX_REGISTERS_PER_THREAD,
    MAX_THREADS_PER_BLOCK,
    MAX_THREADS_PER_SM,
    REGISTER_UNIT_PER_WARP,
    REGISTERS_PER_SM,
    SHARED_BYTES_PER_BLOCK,
    SHARED_BYTES_PER_SM,
    SHARED_RESERVED_PER_BLOCK,
    SHARED_UNIT,
    WARP_SIZE,
    check_whole,
    residency,
)


# --8<-- [start:calculators]
def occupancy(registers: int = 206, num_warps: int = 8, shared_bytes: int = 0) -> str:
    """Blocks per H200 SM and occupancy for one build (calculator)."""
    r = residency(registers, num_warps, shared_bytes)
    return (
        f"{r.blocks} block(s) per SM, {r.blocks * num_warps} of 64 warps: "
        f"occupancy {100 * r.occupancy:.1f}%, limited by {r.limiter} "
        f"(threads allow {r.by_threads}, registers {r.by_registers}, "
        f"shared memory {r.by_shared}, block slots {r.by_block_slots})"
    )


def wave_count(
    grid: int, blocks_per_sm: int = 1, sm_count: int = H200.sm_count
) -> float:
    """Waves a grid of equal blocks takes, a partial wave counting as
    its fraction (the `predict` answer)."""
    check_whole("grid", grid, 1)
    check_whole("blocks_per_sm", blocks_per_sm, 1, MAX_BLOCKS_PER_SM)
    check_whole("sm_count", sm_count, 1)
    return grid / (blocks_per_sm * sm_count)


def waves(
    grid: int = 140, blocks_per_sm: int = 1, sm_count: int = H200.sm_count
) -> str:
    """Full waves, the tail and the share of paid slots doing work (calculator)."""
    slots = blocks_per_sm * sm_count
    exact = wave_count(grid, blocks_per_sm, sm_count)
    rounds = -(-grid // slots)
    tail = grid - (rounds - 1) * slots
    return (
        f"{grid} blocks over {slots} slots: {rounds} wave(s) "
        f"({exact:.2f} of work), the last holds {tail} of {slots}; "
        f"{100 * grid / (rounds * slots):.1f}% of the paid slots work"
    )
    # --8<-- [end:calculators]


def limits_table() -> str:
    """Markdown: the per-SM figures the model uses."""
    rows = [
        ("threads per SM",
         f"{MAX_THREADS_PER_SM:,} ({MAX_THREADS_PER_SM // WARP_SIZE} warps)"),
        ("threads per block", f"{MAX_THREADS_PER_BLOCK:,}"),
        ("resident blocks per SM", str(MAX_BLOCKS_PER_SM)),
        ("32-bit registers per SM", f"{REGISTERS_PER_SM:,}"),
        ("registers per thread", f"at most {MAX_REGISTERS_PER_THREAD}"),
        ("register allocation", f"per warp, in units of {REGISTER_UNIT_PER_WARP}"),
        ("shared memory per SM", f"{SHARED_BYTES_PER_SM // 1024} KB"),
        ("shared memory per block", f"at most {SHARED_BYTES_PER_BLOCK // 1024} KB"),
        ("reserved per block", f"{SHARED_RESERVED_PER_BLOCK // 1024} KB"),
        ("shared memory allocation", f"in units of {SHARED_UNIT} bytes"),
    ]  # fmt: skip
    lines = ["| limit (compute capability 9.0) | value |", "| --- | ---: |"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    return "\n".join(lines)


def facts() -> dict[str, str]:
    """The limits the page states by name; a page reads one as
    ``<!-- fact: snippets/threads_blocks_warps_waves/occupancy.py:limit.warps -->``."""
    return {
        "limit.warps": str(MAX_THREADS_PER_SM // WARP_SIZE),
        "limit.blocks": str(MAX_BLOCKS_PER_SM),
        "limit.registers": f"{REGISTERS_PER_SM:,}",
        "limit.unit": str(REGISTER_UNIT_PER_WARP),
        "limit.shared": f"{SHARED_BYTES_PER_SM // 1024} KB",
        "limit.reserve": f"{SHARED_RESERVED_PER_BLOCK // 1024} KB",
        "limit.sms": str(H200.sm_count),
    }


if __name__ == "__main__":
    print(occupancy(206, 8, 147456))
    print(occupancy(40, 4, 16384))
    print(occupancy(26, 4, 0))
    print(waves(140))
    print(waves(264))
