"""Matrix multiplication ``C = A @ B`` in Gluon, Triton's lower-level language
(``triton.experimental.gluon``): version 2's persistent TMA loop with every
decision Triton's compiler made for version 2 written out by hand.

Versions
    ``matmul_gluon_sm90_kernel`` (Hopper, sm_90a): one instruction stream.
    A ring of ``STAGES`` shared-memory slots, each with an mbarrier that the
    TMA copy completes; a warpgroup MMA (``wgmma``) is issued asynchronously
    and the code waits only until one product is still in flight
    (``warpgroup_mma_wait(1)``), so the copy into the slot the previous
    product read can start while this one runs.

    ``matmul_gluon_sm100_kernel`` (datacenter Blackwell, sm_100a): three
    warp partitions (``gl.warp_specialize``). One warp issues the TMA
    copies, one warp issues ``tcgen05`` products into a float32 accumulator
    in tensor memory, and the kernel's own warps read the accumulator back
    into registers and store C. Two mbarriers per slot (filled, emptied) and
    two for the accumulator (ready, drained) order them.

Both walk the output tiles in version 2's grouped order, one program per
SM (``tile_origin``), and read tiles of A (M, K) and B (K, N), row-major,
16-bit, through TMA descriptors built by ``gluon_descriptors``: TMA pads
the edges with zeros and clips the store of C, so neither kernel masks.

Napkin math: the same as ``kernels.matmul.versions``: ``bytes_moved``
and ``flops``. Tiles (``GLUON_CONFIG``): version 2's large ones, 128 x 256
x 64, 8 warps on Hopper (two warpgroups of 64 rows), 3 stages: 3 * (128 +
256) * 64 * 2 bytes = 144 KiB of A and B slots and 64 KiB for C.

What runs where: these kernels need a GPU of their architecture. The
CPU interpreter (``TRITON_INTERPRET=1``) does not run TMA, mbarriers,
``wgmma`` or tensor memory, so off a GPU they are compiled (``python -m
scripts.artifacts.gluon``), never run; ``matmul_gluon`` refuses a CPU tensor.
The layouts each kernel names are plain Python objects and can be read on
a CPU (``docs/kernels/below-triton/layouts-you-choose.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import blackwell, hopper
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

from kernels.matmul.versions import DEFAULT_SMS, validate


@dataclass(frozen=True)
class GluonConfig:
    """One Gluon build's tiles, stages and warps."""

    BLOCK_M: int
    BLOCK_N: int
    BLOCK_K: int
    GROUP_M: int
    STAGES: int
    num_warps: int


#: Version 2's large tiles (kernels/matmul/versions.py) on both targets.
GLUON_CONFIG = GluonConfig(128, 256, 64, GROUP_M=8, STAGES=3, num_warps=8)
#: Warps of the two worker partitions of the sm_100a kernel (TMA, MMA).
WORKER_WARPS = (1, 1)
#: Registers per thread the worker partitions keep (``setmaxnreg``); they
#: issue instructions and hold no tile, the default partition gets the rest.
WORKER_REGS = (24, 24)


# --8<-- [start:acc-layout]
@gluon.constexpr_function
def wgmma_layout(BLOCK_M, BLOCK_N, num_warps):
    """The accumulator's register layout on Hopper: one wgmma m64nNk16
    per warpgroup, warps stacked along M (16 rows per warp), the whole
    tile's width in one instruction."""
    return gl.NVMMADistributedLayout(
        version=[3, 0],
        warps_per_cta=[num_warps, 1],
        instr_shape=[16, BLOCK_N, 16],
    )
    # --8<-- [end:acc-layout]


# --8<-- [start:tmem-layout]
@gluon.constexpr_function
def tmem_acc_layouts(BLOCK_M, BLOCK_N, num_warps):
    """The accumulator in tensor memory (one 32-bit column per float32,
    one lane per row) and the register layout that ``tcgen05.ld`` 32x32b
    gives: warp w reads lanes 32 * (w % 4) and up, one row per thread."""
    tmem = blackwell.TensorMemoryLayout(block=(BLOCK_M, BLOCK_N), col_stride=1)
    shape = [BLOCK_M, BLOCK_N]
    if hasattr(blackwell, "get_tmem_reg_layout"):  # Triton 3.6
        regs = blackwell.get_tmem_reg_layout(gl.float32, shape, tmem, num_warps)
    else:  # Triton 3.8 asks the descriptor's type
        kind = blackwell.tensor_memory_descriptor_type(gl.float32, shape, tmem, shape)
        regs = kind.get_reg_layout(num_warps)
    return tmem, regs
    # --8<-- [end:tmem-layout]


@gluon.jit
def tile_origin(
    tile, M, N, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, GROUP_M: gl.constexpr
):
    """Version 2's grouped order: bands of GROUP_M tile rows, column by
    column; the (row, col) of C's first element of this tile."""
    tiles_m = gl.cdiv(M, BLOCK_M)
    tiles_n = gl.cdiv(N, BLOCK_N)
    per_band = GROUP_M * tiles_n
    first_m = (tile // per_band) * GROUP_M
    height = gl.minimum(tiles_m - first_m, GROUP_M)
    pos = tile % per_band
    return (first_m + pos % height) * BLOCK_M, (pos // height) * BLOCK_N


@gluon.jit
def _sm90_load(
    a_desc,
    b_desc,
    a_ring,
    b_ring,
    ready,
    row,
    col,
    step,
    k_steps,
    issued,
    STAGES: gl.constexpr,
):
    """Copy K step ``step`` of this tile into the next slot of the ring,
    if there is such a step; return the count of copies issued."""
    if step < k_steps:
        slot = issued % STAGES
        BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
        nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
        mbarrier.expect(ready.index(slot), nbytes)
        tma.async_copy_global_to_shared(
            a_desc, [row, step * BLOCK_K], ready.index(slot), a_ring.index(slot)
        )
        tma.async_copy_global_to_shared(
            b_desc, [step * BLOCK_K, col], ready.index(slot), b_ring.index(slot)
        )
        issued += 1
    return issued


# --8<-- [start:sm90-kernel]
@gluon.jit
def matmul_gluon_sm90_kernel(
    a_desc,
    b_desc,
    c_desc,
    M,
    N,
    K,
    GROUP_M: gl.constexpr,
    STAGES: gl.constexpr,
    num_warps: gl.constexpr,
):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    acc_layout: gl.constexpr = wgmma_layout(BLOCK_M, BLOCK_N, num_warps)
    # Shared memory, laid out the way TMA writes it and wgmma reads it.
    a_ring = gl.allocate_shared_memory(
        a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout
    )
    b_ring = gl.allocate_shared_memory(
        b_desc.dtype, [STAGES, BLOCK_K, BLOCK_N], b_desc.layout
    )
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
    k_steps = gl.cdiv(K, BLOCK_K)
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    issued = 0  # copies issued, over all tiles: slot issued % STAGES
    used = 0  # slots consumed; parity (used // STAGES) & 1
    for tile in range(gl.program_id(0), tiles, gl.num_programs(0)):
        row, col = tile_origin(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        for i in gl.static_range(STAGES - 1):  # fill the ring
            issued = _sm90_load(
                a_desc,
                b_desc,
                a_ring,
                b_ring,
                ready,
                row,
                col,
                i,
                k_steps,
                issued,
                STAGES,
            )
        acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, acc_layout)
        for i in range(k_steps):
            slot = used % STAGES
            mbarrier.wait(ready.index(slot), (used // STAGES) & 1)
            acc = hopper.warpgroup_mma(
                a_ring.index(slot), b_ring.index(slot), acc, is_async=True
            )
            # Leave this product in flight; the previous one is done, so
            # its slot can take the copy of step i + STAGES - 1.
            acc = hopper.warpgroup_mma_wait(1, deps=(acc,))
            used += 1
            issued = _sm90_load(
                a_desc,
                b_desc,
                a_ring,
                b_ring,
                ready,
                row,
                col,
                i + STAGES - 1,
                k_steps,
                issued,
                STAGES,
            )
        acc = hopper.warpgroup_mma_wait(0, deps=(acc,))
        tma.store_wait(0)  # the previous tile's C has left c_smem
        c_smem.store(acc.to(c_desc.dtype))
        hopper.fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [row, col], c_smem)
    tma.store_wait(0)
    # --8<-- [end:sm90-kernel]


# --8<-- [start:sm100-loader]
@gluon.jit
def _sm100_loader(
    a_desc,
    b_desc,
    a_ring,
    b_ring,
    filled,
    emptied,
    M,
    N,
    K,
    GROUP_M: gl.constexpr,
    STAGES: gl.constexpr,
):
    """One warp: wait for a slot to be emptied, then copy A and B into it."""
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    n = 0
    for tile in range(gl.program_id(0), tiles, gl.num_programs(0)):
        row, col = tile_origin(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        for k in range(0, K, BLOCK_K):
            slot = n % STAGES
            # Parity 1 on a fresh barrier passes: the first lap needs no wait.
            mbarrier.wait(emptied.index(slot), ((n // STAGES) & 1) ^ 1)
            mbarrier.expect(filled.index(slot), nbytes)
            tma.async_copy_global_to_shared(
                a_desc, [row, k], filled.index(slot), a_ring.index(slot)
            )
            tma.async_copy_global_to_shared(
                b_desc, [k, col], filled.index(slot), b_ring.index(slot)
            )
            n += 1
    # --8<-- [end:sm100-loader]


# --8<-- [start:sm100-mma]
@gluon.jit
def _sm100_mma(
    a_ring,
    b_ring,
    filled,
    emptied,
    acc_tmem,
    acc_ready,
    acc_drained,
    M,
    N,
    K,
    BLOCK_M: gl.constexpr,
    BLOCK_N: gl.constexpr,
    BLOCK_K: gl.constexpr,
    STAGES: gl.constexpr,
):
    """One warp: issue the tcgen05 products; each one empties its slot when
    the tensor cores finish reading it."""
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    n = 0
    t = 0
    for _tile in range(gl.program_id(0), tiles, gl.num_programs(0)):
        mbarrier.wait(acc_drained, (t & 1) ^ 1)  # the epilogue read the last tile
        use_acc = False  # the first product overwrites tensor memory
        for _k in range(0, K, BLOCK_K):
            slot = n % STAGES
            mbarrier.wait(filled.index(slot), (n // STAGES) & 1)
            blackwell.tcgen05_mma(
                a_ring.index(slot),
                b_ring.index(slot),
                acc_tmem,
                use_acc=use_acc,
                mbarriers=[emptied.index(slot)],
            )
            use_acc = True
            n += 1
        blackwell.tcgen05_commit(acc_ready)  # arrives when every product is done
        t += 1
    # --8<-- [end:sm100-mma]


# --8<-- [start:sm100-epilogue]
@gluon.jit
def _sm100_epilogue(
    c_desc,
    c_smem,
    acc_tmem,
    acc_ready,
    acc_drained,
    M,
    N,
    GROUP_M: gl.constexpr,
    num_warps: gl.constexpr,
):
    """The kernel's own warps: tensor memory to registers to shared memory,
    then one TMA store of C per tile."""
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    t = 0
    for tile in range(gl.program_id(0), tiles, gl.num_programs(0)):
        row, col = tile_origin(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        mbarrier.wait(acc_ready, t & 1)
        acc = acc_tmem.load(tmem_acc_layouts(BLOCK_M, BLOCK_N, num_warps)[1])
        mbarrier.arrive(acc_drained, count=1)  # the MMA warp may overwrite it
        tma.store_wait(0)
        c_smem.store(acc.to(c_desc.dtype))
        blackwell.fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [row, col], c_smem)
        t += 1
    tma.store_wait(0)
    # --8<-- [end:sm100-epilogue]


# --8<-- [start:sm100-kernel]
@gluon.jit
def matmul_gluon_sm100_kernel(
    a_desc,
    b_desc,
    c_desc,
    M,
    N,
    K,
    GROUP_M: gl.constexpr,
    STAGES: gl.constexpr,
    num_warps: gl.constexpr,
):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    a_ring = gl.allocate_shared_memory(
        a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout
    )
    b_ring = gl.allocate_shared_memory(
        b_desc.dtype, [STAGES, BLOCK_K, BLOCK_N], b_desc.layout
    )
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    bar: gl.constexpr = mbarrier.MBarrierLayout()
    filled = gl.allocate_shared_memory(gl.int64, [STAGES, 1], bar)
    emptied = gl.allocate_shared_memory(gl.int64, [STAGES, 1], bar)
    acc_ready = gl.allocate_shared_memory(gl.int64, [1], bar)
    acc_drained = gl.allocate_shared_memory(gl.int64, [1], bar)
    for s in gl.static_range(STAGES):
        mbarrier.init(filled.index(s), count=1)
        mbarrier.init(emptied.index(s), count=1)
    mbarrier.init(acc_ready, count=1)
    mbarrier.init(acc_drained, count=1)
    # The accumulator: BLOCK_N 32-bit columns of tensor memory, 128 lanes.
    tmem_layout: gl.constexpr = tmem_acc_layouts(BLOCK_M, BLOCK_N, num_warps)[0]
    acc_tmem = blackwell.allocate_tensor_memory(
        gl.float32, [BLOCK_M, BLOCK_N], tmem_layout
    )
    gl.warp_specialize(
        [
            (
                _sm100_epilogue,
                (
                    c_desc,
                    c_smem,
                    acc_tmem,
                    acc_ready,
                    acc_drained,
                    M,
                    N,
                    GROUP_M,
                    num_warps,
                ),
            ),
            (
                _sm100_loader,
                (
                    a_desc,
                    b_desc,
                    a_ring,
                    b_ring,
                    filled,
                    emptied,
                    M,
                    N,
                    K,
                    GROUP_M,
                    STAGES,
                ),
            ),
            (
                _sm100_mma,
                (
                    a_ring,
                    b_ring,
                    filled,
                    emptied,
                    acc_tmem,
                    acc_ready,
                    acc_drained,
                    M,
                    N,
                    K,
                    BLOCK_M,
                    BLOCK_N,
                    BLOCK_K,
                    STAGES,
                ),
            ),
        ],
        worker_num_warps=[1, 1],
        worker_num_regs=[24, 24],
    )
    # --8<-- [end:sm100-kernel]


#: The kernel of each target.
KERNELS = {"sm_90a": matmul_gluon_sm90_kernel, "sm_100a": matmul_gluon_sm100_kernel}


def shared_layouts(dtype=gl.bfloat16, config: GluonConfig = GLUON_CONFIG) -> dict:
    """The NVMMA shared layouts of the A, B and C tiles: Gluon's default
    for a 16-bit tile (a 128-byte swizzle where a row spans 128 bytes)."""
    bm, bn, bk = config.BLOCK_M, config.BLOCK_N, config.BLOCK_K
    return {
        "a": gl.NVMMASharedLayout.get_default_for([bm, bk], dtype),
        "b": gl.NVMMASharedLayout.get_default_for([bk, bn], dtype),
        "c": gl.NVMMASharedLayout.get_default_for([bm, bn], dtype),
    }


def descriptor_types(dtype: str = "bf16", config: GluonConfig = GLUON_CONFIG) -> dict:
    """The compile signature of the three descriptors: dtype, block shape
    and shared layout, as Gluon's host descriptor names itself."""
    layouts = shared_layouts(
        getattr(gl, {"bf16": "bfloat16"}.get(dtype, dtype)), config
    )
    bm, bn, bk = config.BLOCK_M, config.BLOCK_N, config.BLOCK_K
    blocks = {"a": (bm, bk), "b": (bk, bn), "c": (bm, bn)}
    return {
        f"{name}_desc": f"tensordesc<{dtype}[{blocks[name][0]}, {blocks[name][1]}],"
        f"{layouts[name]!r}>"
        for name in ("a", "b", "c")
    }


def gluon_descriptors(a, b, c, config: GluonConfig = GLUON_CONFIG):
    """Host-side TMA descriptors for A, B and C with the shared layouts."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    layouts = shared_layouts(gl.bfloat16 if a.dtype == torch.bfloat16 else gl.float16)
    bm, bn, bk = config.BLOCK_M, config.BLOCK_N, config.BLOCK_K
    return (
        TensorDescriptor.from_tensor(a, [bm, bk], layouts["a"]),
        TensorDescriptor.from_tensor(b, [bk, bn], layouts["b"]),
        TensorDescriptor.from_tensor(c, [bm, bn], layouts["c"]),
    )


# --8<-- [start:launcher]
def matmul_gluon(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """C = A @ B with the Gluon kernel of this GPU's architecture (sm_90
    or sm_100); 16-bit, row-major operands only."""
    validate(a, b)
    if not a.is_cuda:
        raise ValueError("matmul_gluon needs a GPU: the interpreter runs no Gluon")
    major, _ = torch.cuda.get_device_capability(a.device)
    target = {9: "sm_90a", 10: "sm_100a"}.get(major)
    if target is None or a.dtype not in (torch.bfloat16, torch.float16):
        raise ValueError("matmul_gluon takes 16-bit operands on sm_90 or sm_100")
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    cfg = GLUON_CONFIG
    tiles = triton.cdiv(M, cfg.BLOCK_M) * triton.cdiv(N, cfg.BLOCK_N)
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    KERNELS[target][(min(tiles, sms or DEFAULT_SMS),)](
        *gluon_descriptors(a, b, c),
        M,
        N,
        K,
        GROUP_M=cfg.GROUP_M,
        STAGES=cfg.STAGES,
        num_warps=cfg.num_warps,
    )
    return c
    # --8<-- [end:launcher]
