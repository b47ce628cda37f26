"""kernels/matmul/gluon.py: the Gluon matmul. It cannot run off a GPU (the
interpreter runs no Gluon), so these tests check what a CPU can: that the
module is a compiled-kernel module even under TRITON_INTERPRET=1, that the
launcher refuses what it cannot run with one line, and that the layouts and
signature the artifact builder compiles are the ones the kernel documents.
Values need a GPU: sm_90 for one kernel, sm_100 for the other."""

import dataclasses

import pytest
import torch
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonJITFunction

from kernels.matmul import gluon


def test_gluon_kernels_are_not_interpreted_even_with_the_interpreter_on():
    # tests/conftest.py sets TRITON_INTERPRET=1; gluon.jit ignores it.
    for kernel in gluon.KERNELS.values():
        assert isinstance(kernel, GluonJITFunction)


@pytest.mark.parametrize(
    "a, b, words",
    [
        (
            torch.ones(4, 4, dtype=torch.bfloat16),
            torch.ones(4, 4, dtype=torch.bfloat16),
            "needs a GPU",
        ),
        (torch.ones(4, 4), torch.ones(5, 4), "needs them equal"),
    ],
    ids=["cpu-tensor", "shapes-disagree"],
)
def test_the_launcher_refuses_with_one_line(a, b, words):
    with pytest.raises((ValueError, TypeError)) as caught:
        gluon.matmul_gluon(a, b)
    message = str(caught.value)
    assert "\n" not in message
    assert words in message.lower() or words in message


def test_the_tiles_are_version_2s_large_ones():
    from kernels.matmul.versions import v2_config

    cfg, large = gluon.GLUON_CONFIG, v2_config(8192, 8192)
    assert (cfg.BLOCK_M, cfg.BLOCK_N, cfg.BLOCK_K) == (
        large.BLOCK_M,
        large.BLOCK_N,
        large.BLOCK_K,
    )
    assert (cfg.STAGES, cfg.num_warps) == (large.num_stages, large.num_warps)


def test_every_tile_gets_the_128_byte_swizzle():
    for layout in gluon.shared_layouts().values():
        assert layout.swizzle_byte_width == 128
        assert layout.element_bitwidth == 16


def test_the_signature_names_block_shape_and_layout():
    types = gluon.descriptor_types()
    assert types["a_desc"].startswith("tensordesc<bf16[128, 64],NVMMASharedLayout(")
    assert types["b_desc"].startswith("tensordesc<bf16[64, 256],")
    assert types["c_desc"].startswith("tensordesc<bf16[128, 256],")


def test_the_wgmma_layout_covers_the_tile_in_one_instruction_per_warpgroup():
    layout = gluon.wgmma_layout(128, 256, 8)
    assert layout.instr_shape == [16, 256, 16]
    assert layout.warps_per_cta == [8, 1]


def test_tensor_memory_takes_one_column_per_float32_and_the_registers_a_row():
    tmem, regs = gluon.tmem_acc_layouts(128, 256, 8)
    assert tuple(tmem.block) == (128, 256)
    assert tmem.col_stride == 1
    assert isinstance(regs, gl.DistributedLinearLayout)
    assert len(regs.reg_bases) == 7  # 128 registers: one row, half the columns
    assert regs.warp_bases[-1] == [0, 128]  # warps 4-7: the right half


def test_a_config_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        gluon.GLUON_CONFIG.STAGES = 4


# Awkward for the 128 x 256 x 64 tile but legal for TMA (16-byte rows):
# one partial tile, tails in every dimension, more tiles than a wave.
GPU_SHAPES = [(1, 8, 8), (257, 264, 136), (1000, 1032, 520), (4096, 4096, 4096)]


@pytest.mark.parametrize("M, N, K", GPU_SHAPES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_values_on_a_gpu_within_the_matmul_bound(device, M, N, K, dtype):
    """The values a CPU cannot check: run by make test-gpu and the device
    run's kernel-tests step, on sm_90 (the Hopper kernel) or sm_100."""
    if device != "cuda" or not torch.cuda.is_available():
        pytest.skip("Gluon runs only on a GPU (make test-gpu)")
    if torch.cuda.get_device_capability()[0] not in (9, 10):
        pytest.skip("the Gluon kernels are for sm_90 and sm_100")
    from tests.kernels.matmul.test_versions import assert_within, error_bound

    generator = torch.Generator().manual_seed(M * 7 + N)
    a = torch.randn(M, K, generator=generator).to(dtype)
    b = torch.randn(K, N, generator=generator).to(dtype)
    out = gluon.matmul_gluon(a.cuda(), b.cuda())
    assert_within(out, a.double() @ b.double(), error_bound(a, b))
