"""Interview exercise: blocks per SM from registers and shared memory
(docs/interview/occupancy-from-registers.md). The limits are compute
capability 9.0's (CUDA C++ Programming Guide, "Compute Capabilities"; the
occupancy calculator's allocation rules), as the lesson "Threads, blocks,
warps, waves and occupancy" teaches them."""

import math

REGISTERS_PER_SM = 65536
REGISTER_UNIT_PER_WARP = 256  # registers are allocated to a warp in these units
MAX_WARPS_PER_SM = 64
MAX_BLOCKS_PER_SM = 32
SHARED_PER_SM = 228 * 1024
SHARED_RESERVED_PER_BLOCK = 1024  # the system's own share of every block
WARP = 32

THREADS = 256
REGISTERS = 128
SHARED = 48 * 1024


# --8<-- [start:limits]
def blocks_per_sm(threads: int, registers: int, shared: int) -> dict[str, int]:
    """How many blocks each resource admits on one SM, and the least of them."""
    warps = math.ceil(threads / WARP)
    per_warp = math.ceil(registers * WARP / REGISTER_UNIT_PER_WARP)
    per_warp *= REGISTER_UNIT_PER_WARP
    limits = {
        "registers": (REGISTERS_PER_SM // per_warp) // warps,
        "shared memory": SHARED_PER_SM // (shared + SHARED_RESERVED_PER_BLOCK),
        "warps": MAX_WARPS_PER_SM // warps,
        "blocks": MAX_BLOCKS_PER_SM,
    }
    limits["resident"] = min(limits.values())
    return limits


# --8<-- [end:limits]


def occupancy(threads: int, registers: int, shared: int) -> float:
    warps = math.ceil(threads / WARP)
    return (
        blocks_per_sm(threads, registers, shared)["resident"] * warps / MAX_WARPS_PER_SM
    )


def most_registers_for(blocks: int, threads: int = THREADS, shared: int = SHARED):
    """The largest register count per thread that still admits `blocks`."""
    fits = [
        r
        for r in range(1, 256)
        if blocks_per_sm(threads, r, shared)["resident"] >= blocks
    ]
    return max(fits) if fits else None


def facts() -> dict[str, str]:
    now = blocks_per_sm(THREADS, REGISTERS, SHARED)
    limiter = min(("registers", "shared memory", "warps", "blocks"), key=now.get)
    more = blocks_per_sm(THREADS, REGISTERS + 1, SHARED)
    return {
        "given.threads": str(THREADS),
        "given.registers": str(REGISTERS),
        "given.shared": f"{SHARED // 1024} KiB",
        "given.registers_plus_one": str(REGISTERS + 1),
        "given.register_file": f"{REGISTERS_PER_SM:,}",
        "given.shared_per_sm": f"{SHARED_PER_SM // 1024} KiB",
        "given.max_warps": str(MAX_WARPS_PER_SM),
        "given.max_blocks": str(MAX_BLOCKS_PER_SM),
        "given.unit": str(REGISTER_UNIT_PER_WARP),
        "given.reserve": f"{SHARED_RESERVED_PER_BLOCK // 1024} KiB",
        "answer.by_registers": str(now["registers"]),
        "answer.by_shared": str(now["shared memory"]),
        "answer.by_warps": str(now["warps"]),
        "answer.resident": str(now["resident"]),
        "answer.limiter": limiter,
        "answer.occupancy": f"{occupancy(THREADS, REGISTERS, SHARED):.1%}",
        "answer.plus_one_resident": str(more["resident"]),
        "answer.plus_one_occupancy": f"{occupancy(THREADS, REGISTERS + 1, SHARED):.1%}",
        "answer.for_three": str(most_registers_for(3)),
        "answer.for_four": str(most_registers_for(4)),
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>19}: {value}")
