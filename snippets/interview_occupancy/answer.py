"""Interview exercise: blocks per SM from registers and shared memory
(docs/interview/occupancy-from-registers.md). The limits and the residency
model are the ones the lesson "Threads, blocks, warps, waves and occupancy"
teaches (snippets/lib/occupancy.py: compute capability 9.0, from the CUDA C++
Programming Guide and the occupancy calculator's allocation rules)."""

import math

from snippets.lib.occupancy import (
    MAX_BLOCKS_PER_SM,
    MAX_THREADS_PER_SM,
    REGISTER_UNIT_PER_WARP,
    REGISTERS_PER_SM,
    SHARED_BYTES_PER_SM,
    SHARED_RESERVED_PER_BLOCK,
    WARP_SIZE,
    Residency,
    residency,
)

THREADS = 256
REGISTERS = 128
SHARED = 48 * 1024


def blocks_per_sm(threads: int, registers: int, shared: int) -> Residency:
    """How many blocks each resource admits on one SM, and the least of them."""
    return residency(registers, math.ceil(threads / WARP_SIZE), shared)


def occupancy(threads: int, registers: int, shared: int) -> float:
    return blocks_per_sm(threads, registers, shared).occupancy


def most_registers_for(blocks: int, threads: int = THREADS, shared: int = SHARED):
    """The largest register count per thread that still admits `blocks`."""
    fits = [
        r for r in range(1, 256) if blocks_per_sm(threads, r, shared).blocks >= blocks
    ]
    return max(fits) if fits else None


def facts() -> dict[str, str]:
    now = blocks_per_sm(THREADS, REGISTERS, SHARED)
    more = blocks_per_sm(THREADS, REGISTERS + 1, SHARED)
    return {
        "given.threads": str(THREADS),
        "given.registers": str(REGISTERS),
        "given.shared": f"{SHARED // 1024} KiB",
        "given.registers_plus_one": str(REGISTERS + 1),
        "given.register_file": f"{REGISTERS_PER_SM:,}",
        "given.shared_per_sm": f"{SHARED_BYTES_PER_SM // 1024} KiB",
        "given.max_warps": str(MAX_THREADS_PER_SM // WARP_SIZE),
        "given.max_blocks": str(MAX_BLOCKS_PER_SM),
        "given.unit": str(REGISTER_UNIT_PER_WARP),
        "given.reserve": f"{SHARED_RESERVED_PER_BLOCK // 1024} KiB",
        "answer.by_registers": str(now.by_registers),
        "answer.by_shared": str(now.by_shared),
        "answer.by_warps": str(now.by_threads),
        "answer.resident": str(now.blocks),
        "answer.limiter": now.limiter,
        "answer.occupancy": f"{now.occupancy:.1%}",
        "answer.plus_one_resident": str(more.blocks),
        "answer.plus_one_occupancy": f"{more.occupancy:.1%}",
        "answer.for_three": str(most_registers_for(3)),
        "answer.for_four": str(most_registers_for(4)),
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>19}: {value}")
