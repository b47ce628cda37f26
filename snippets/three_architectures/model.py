"""What the three targets' own figures predict for one matmul tile (lesson:
The same kernel on three architectures). Evidence kind: pencil model, from
kernels/devices.py (TARGETS: shared memory, registers, tensor memory, SM
counts; H200: its dense bf16 rate); no device has run any of it.

Four predictions, each a ratio or a count, never a time on a part whose
rates the project does not hold: how many pipeline stages of a tile fit a
block, where the float32 accumulator lives, how many matrix instructions
one K step takes, and how full the last wave of tiles is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kernels.devices import H200, TARGETS, WARP_SIZE

BF16_BYTES = 2
FP32_BYTES = 4
THREADS_PER_WARP = WARP_SIZE
#: Work of one matrix instruction (m, n, k): wgmma's widest bf16 shape, and
#: mma.sync's m16n8k16 (PTX ISA, "Warpgroup MMA" and "Matrix shapes").
WGMMA_SHAPE = (64, 256, 16)
MMA_SYNC_SHAPE = (16, 8, 16)
#: Tensor memory: 128 lanes of 32-bit columns (PTX ISA, tcgen05); a 128-row
#: float32 accumulator takes one column per output column.
TMEM_LANES = 128


# --8<-- [start:tile]
@dataclass(frozen=True)
class Tile:
    m: int
    n: int
    k: int
    warps: int = 8

    def stage_bytes(self, itemsize: int = BF16_BYTES) -> int:
        """One stage: an m x k tile of A and a k x n tile of B."""
        return (self.m * self.k + self.k * self.n) * itemsize

    def flop_per_byte(self, itemsize: int = BF16_BYTES) -> float:
        """FLOPs per byte of operands a K step brings into shared memory."""
        return 2 * self.m * self.n * self.k / self.stage_bytes(itemsize)

    def accumulator_registers(self) -> int:
        """float32 accumulator registers each thread holds."""
        return self.m * self.n // (self.warps * THREADS_PER_WARP)


def stages_that_fit(tile: Tile, target: str) -> int:
    """Stages of A and B a block's shared memory holds, before the
    epilogue's staging buffer takes its share."""
    return TARGETS[target].shared_bytes_per_block // tile.stage_bytes()
    # --8<-- [end:tile]


# --8<-- [start:accumulator]
def tensor_memory_accumulators(tile: Tile, target: str) -> int:
    """How many float32 accumulators of the tile one SM's tensor memory
    holds (0 where there is none): two let the epilogue of one tile run
    while the next tile's products accumulate."""
    columns = TARGETS[target].tensor_memory_bytes_per_sm // (TMEM_LANES * FP32_BYTES)
    per_accumulator = math.ceil(tile.m / TMEM_LANES) * tile.n
    return columns // per_accumulator


def mma_per_k_step(tile: Tile, shape: tuple[int, int, int]) -> int:
    """Matrix instructions one warp (mma.sync) or warpgroup (wgmma) issues
    per K step of the tile."""
    m, n, k = shape
    per_program = (tile.m * tile.n * tile.k) // (m * n * k)
    issuers = tile.warps if shape == MMA_SYNC_SHAPE else tile.warps // 4
    return per_program // issuers
    # --8<-- [end:accumulator]


# --8<-- [start:waves]
def last_wave_fill(tile: Tile, size: int, target: str) -> float:
    """Useful fraction of the SM-time of a persistent launch: tiles over
    (waves x SMs), the last wave partly empty."""
    tiles = math.ceil(size / tile.m) * math.ceil(size / tile.n)
    sms = TARGETS[target].sm_count
    return tiles / (math.ceil(tiles / sms) * sms)
    # --8<-- [end:waves]


# --8<-- [start:attention]
def attention_accumulators(block_m: int, block_n: int, head_dim: int, warps: int):
    """Attention's two float32 tiles per program, the scores S (block_m x
    block_n) and the output O (block_m x head_dim): registers a thread
    holds for them, and tensor-memory columns where they live instead."""
    cells = block_m * (block_n + head_dim)
    registers = cells // (warps * THREADS_PER_WARP)
    columns = math.ceil(block_m / TMEM_LANES) * (block_n + head_dim)
    return registers, columns
    # --8<-- [end:attention]


#: The tiles the launcher runs at 8192 cubed: Hopper's (sm_90a and
#: sm_100a) and the RTX 50-class one (kernels/matmul/versions.py).
HOPPER_TILE = Tile(128, 256, 64)
CONSUMER_TILE = Tile(128, 128, 64)
SIZE = 8192
#: Attention version 3: 128 queries, 128 keys, head dimension 128, 8 warps.
ATTENTION = attention_accumulators(128, 128, 128, 8)


def operand_rate_needed(tile: Tile) -> float:
    """Bytes per second of operands into shared memory that keep an H200's
    tensor cores at their dense bf16 rate with this tile."""
    return H200.bf16_dense_flop_per_s / tile.flop_per_byte()


def model_rows() -> list[list[str]]:
    rows = []
    for target in TARGETS:
        tile = CONSUMER_TILE if target == "sm_120a" else HOPPER_TILE
        shape = {"sm_120a": MMA_SYNC_SHAPE}.get(target, WGMMA_SHAPE)
        tmem = tensor_memory_accumulators(tile, target)
        rows.append(
            [
                target,
                f"{tile.m} × {tile.n} × {tile.k}",
                str(stages_that_fit(tile, target)),
                f"{tile.flop_per_byte():.1f}",
                f"tensor memory, {tmem} fit"
                if tmem
                else f"registers, {tile.accumulator_registers()} a thread",
                str(mma_per_k_step(tile, shape))
                if target != "sm_100a"
                else "1 thread issues",
                f"{last_wave_fill(tile, SIZE, target):.1%}",
            ]
        )
    return rows


def model_table() -> str:
    from evidence.tables import markdown_table

    header = [
        "target",
        "tile",
        "stages that fit",
        "FLOP per operand byte",
        "accumulator",
        "MMAs per K step per issuer",
        f"last-wave fill at {SIZE}³",
    ]
    return markdown_table(header, model_rows(), "llrrlrr") + "\n"


def facts() -> dict[str, str]:
    """Every modelled value the lesson states."""
    hopper_on_consumer = stages_that_fit(HOPPER_TILE, "sm_120a")
    ratio = HOPPER_TILE.flop_per_byte() / CONSUMER_TILE.flop_per_byte()
    return {
        "hopper_stage_kib": str(HOPPER_TILE.stage_bytes() // 1024),
        "consumer_stage_kib": str(CONSUMER_TILE.stage_bytes() // 1024),
        "hopper_stages_sm90": str(stages_that_fit(HOPPER_TILE, "sm_90a")),
        "hopper_stages_sm120": str(hopper_on_consumer),
        "hopper_flop_per_byte": f"{HOPPER_TILE.flop_per_byte():.1f}",
        "consumer_flop_per_byte": f"{CONSUMER_TILE.flop_per_byte():.1f}",
        "traffic_ratio": f"{ratio:.2f}",
        "hopper_rate_tb": f"{operand_rate_needed(HOPPER_TILE) / 1e12:.1f}",
        "h200_tflops": f"{H200.bf16_dense_flop_per_s / 1e12:,.0f}",
        "hopper_acc_registers": str(HOPPER_TILE.accumulator_registers()),
        "consumer_acc_registers": str(CONSUMER_TILE.accumulator_registers()),
        "sm100_accumulators": str(tensor_memory_accumulators(HOPPER_TILE, "sm_100a")),
        "wgmma_per_k": str(mma_per_k_step(HOPPER_TILE, WGMMA_SHAPE)),
        "hmma_per_k": str(mma_per_k_step(CONSUMER_TILE, MMA_SYNC_SHAPE)),
        "instruction_ratio": f"{math.prod(WGMMA_SHAPE) // math.prod(MMA_SYNC_SHAPE)}",
        "rtx5090_sms": str(TARGETS["sm_120a"].sm_count),
        "attention_acc_registers": str(ATTENTION[0]),
        "attention_tmem_columns": str(ATTENTION[1]),
        "register_limit": str(TARGETS["sm_120a"].registers_per_thread),
        # Exercise 1: the fp8 tile (one-byte elements) on sm_120a.
        "ex1_fp8_stage_kib": str(HOPPER_TILE.stage_bytes(1) // 1024),
        "ex1_fp8_stages": str(
            TARGETS["sm_120a"].shared_bytes_per_block // HOPPER_TILE.stage_bytes(1)
        ),
        # Exercise 2: a 256-wide tile on sm_100a, double-buffered or not.
        "ex2_wide_accumulators": str(
            tensor_memory_accumulators(Tile(128, 512, 64), "sm_100a")
        ),
        "ex2_columns": str(
            TARGETS["sm_100a"].tensor_memory_bytes_per_sm // (TMEM_LANES * FP32_BYTES)
        ),
    }
