"""How many blocks of a kernel fit on one Hopper SM, and which limit binds
(lesson: Threads, blocks, warps, waves and occupancy,
docs/kernels/work-mapping/threads-blocks-warps-waves.md; the interview
exercise "Occupancy from registers and shared memory" uses it too).

A pencil model: it applies the per-SM limits of compute capability 9.0 to the
registers, warps and shared memory a compiled build uses. It says how many
blocks *can* be resident; whether more resident warps make a kernel faster is
a device question. Standard library and ``kernels/devices.py`` only (the
lesson's calculators import it in the reader's browser).
"""

from __future__ import annotations

from dataclasses import dataclass

# --8<-- [start:sm90-limits]
# Compute capability 9.0 (Hopper: H100, H200). From the CUDA C++ Programming
# Guide, "Technical Specifications per Compute Capability", column 9.0, and
# its compute capability 9.0 section on shared memory; the register
# allocation unit is the one NVIDIA's occupancy calculator (Nsight Compute)
# uses for 9.0. The warp size is the same on every NVIDIA GPU so far.
from kernels.devices import WARP_SIZE

MAX_THREADS_PER_BLOCK = 1024
MAX_THREADS_PER_SM = 2048  # = 64 resident warps
MAX_BLOCKS_PER_SM = 32
REGISTERS_PER_SM = 64 * 1024  # 32-bit registers
MAX_REGISTERS_PER_THREAD = 255
REGISTER_UNIT_PER_WARP = 256  # a warp's registers are allocated in 256s
SUB_PARTITIONS = 4  # an SM's register file is split between four schedulers
SHARED_BYTES_PER_SM = 228 * 1024  # with the largest carveout
SHARED_BYTES_PER_BLOCK = 227 * 1024  # the most one block may ask for
SHARED_RESERVED_PER_BLOCK = 1024  # held back by the system for each block
SHARED_UNIT = 128  # shared memory is allocated in 128-byte units
# --8<-- [end:sm90-limits]


def check_whole(name: str, value: object, low: int, high: int | None = None) -> int:
    """`value` when it is a whole number in [low, high]; a ValueError naming
    `name` otherwise (the calculators show that message to the reader)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < low or (high is not None and value > high):
        top = "" if high is None else f" and at most {high}"
        raise ValueError(f"{name} must be at least {low}{top}, got {value}")
    return value


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


# --8<-- [start:blocks-per-sm]
def register_warps(registers: int) -> int:
    """Warps the register file holds at `registers` per thread. Each warp's
    share is rounded up to the allocation unit, and warps are placed in the
    four sub-partitions' quarters of the file, not in the file as a whole
    (NVIDIA's cuda_occupancy.h, cudaOccMaxBlocksPerSMRegsLimit)."""
    per_warp = _round_up(registers * WARP_SIZE, REGISTER_UNIT_PER_WARP)
    return SUB_PARTITIONS * ((REGISTERS_PER_SM // SUB_PARTITIONS) // per_warp)


@dataclass(frozen=True)
class Residency:
    """Blocks of one build that fit on an SM, and what each limit allows."""

    by_threads: int
    by_registers: int
    by_shared: int
    by_block_slots: int
    warps_per_block: int

    @property
    def blocks(self) -> int:
        return min(
            self.by_threads, self.by_registers, self.by_shared, self.by_block_slots
        )

    @property
    def limiter(self) -> str:
        """Every limit that binds, joined with 'and'."""
        limits = {
            "registers": self.by_registers,
            "shared memory": self.by_shared,
            "threads": self.by_threads,
            "block slots": self.by_block_slots,
        }
        return " and ".join(k for k, v in limits.items() if v == self.blocks)

    @property
    def occupancy(self) -> float:
        """Resident warps over the 64 an SM can hold."""
        return self.blocks * self.warps_per_block * WARP_SIZE / MAX_THREADS_PER_SM


def residency(registers: int, num_warps: int, shared_bytes: int) -> Residency:
    """Apply each compute capability 9.0 limit to one build."""
    check_whole("registers", registers, 1, MAX_REGISTERS_PER_THREAD)
    check_whole("num_warps", num_warps, 1, MAX_THREADS_PER_BLOCK // WARP_SIZE)
    check_whole("shared_bytes", shared_bytes, 0, SHARED_BYTES_PER_BLOCK)
    warps_by_registers = register_warps(registers)
    # Shared memory: the block's bytes plus the system's reserve, rounded up.
    per_block = _round_up(shared_bytes + SHARED_RESERVED_PER_BLOCK, SHARED_UNIT)
    return Residency(
        by_threads=MAX_THREADS_PER_SM // (num_warps * WARP_SIZE),
        by_registers=warps_by_registers // num_warps,
        by_shared=SHARED_BYTES_PER_SM // per_block,
        by_block_slots=MAX_BLOCKS_PER_SM,
        warps_per_block=num_warps,
    )
    # --8<-- [end:blocks-per-sm]
