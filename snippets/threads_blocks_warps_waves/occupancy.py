"""How many blocks of a kernel fit on one H200 SM, and why.

Shown on docs/kernels/work-mapping/threads-blocks-warps-waves.md. A pencil
model: it applies the per-SM limits of compute capability 9.0 to the
registers, warps and shared memory a compiled build uses. It says how many
blocks *can* be resident; whether more resident warps make a kernel faster is
a device question.

Standard library only (the page turns `occupancy` and `waves` into in-browser
calculators).
"""

from __future__ import annotations

from dataclasses import dataclass

from kernels.devices import H200

# --8<-- [start:sm90-limits]
# Compute capability 9.0 (Hopper: H100, H200). From the CUDA C++ Programming
# Guide, "Technical Specifications per Compute Capability", column 9.0, and
# its compute capability 9.0 section on shared memory; the register
# allocation unit is the one NVIDIA's occupancy calculator (Nsight Compute)
# uses for 9.0.
WARP_SIZE = 32
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


def _check(name: str, value: object, low: int, high: int | None = None) -> int:
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
    _check("registers", registers, 1, MAX_REGISTERS_PER_THREAD)
    _check("num_warps", num_warps, 1, MAX_THREADS_PER_BLOCK // WARP_SIZE)
    _check("shared_bytes", shared_bytes, 0, SHARED_BYTES_PER_BLOCK)
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
    _check("grid", grid, 1)
    _check("blocks_per_sm", blocks_per_sm, 1, MAX_BLOCKS_PER_SM)
    _check("sm_count", sm_count, 1)
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
