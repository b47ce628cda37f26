"""transpose (naive and tiled) against its contract (interpreter or CUDA).

A transpose only moves bits, so every dtype is compared bit for bit with
PyTorch's answer (tolerance: none), NaN payloads and signed zeros included;
the interpreter's bfloat16 rounding does not come into it because nothing is
rounded.
"""

import pytest
import torch
import triton

import kernels.transpose.versions as tr
from tests.helpers.kernel_checks import (
    assert_bits_unchanged,
    assert_plain_result,
    bit_snapshot,
    dirty_freed_memory,
    random_tensor,
    seed_for,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
DTYPE_IDS = ["float32", "float16", "bfloat16"]
VERSIONS = {
    "naive": tr.transpose_v1,
    "tiled": tr.transpose_v2,
    "grouped": tr.transpose_v3,
    "public": tr.transpose,
}

# The tiled kernel's tiles are 64 x 64, the grouped one's 64 x 128; the naive
# one takes 256 columns. Each
# shape is a non-multiple of a tile dimension somewhere, and the larger ones
# need more than one tile along both dimensions of the matrix.
SHAPES = [
    (1, 1),
    (1, 257),
    (257, 1),
    (63, 65),
    (64, 256),
    (65, 257),
    (130, 67),
    (255, 3),
    (3, 521),
]


def check(fn, x: torch.Tensor) -> torch.Tensor:
    """Run ``fn`` under every contract check that applies to one call."""
    expected = tr.transpose_ref(x.clone())
    snapshot = bit_snapshot(x)
    dirty_freed_memory(expected.numel() * expected.element_size(), x.device)
    out = fn(x)
    assert_plain_result(out, expected, (x,))
    assert out.is_contiguous(), "output must be contiguous"
    different = int((bit_snapshot(out) != bit_snapshot(expected)).sum())
    assert different == 0, f"{different} of {out.numel()} elements differ"
    assert_bits_unchanged(x, snapshot, "x")
    return out


@pytest.mark.parametrize("version", VERSIONS.keys())
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_boundary_shapes(shape, version, device):
    x = random_tensor(shape, torch.float32, device, seed=seed_for("tr", shape))
    check(VERSIONS[version], x)


@pytest.mark.parametrize("version", VERSIONS.keys())
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_every_dtype(dtype, version, device):
    x = random_tensor((67, 130), dtype, device, seed=seed_for("tr", dtype))
    check(VERSIONS[version], x)


@pytest.mark.parametrize("version", ["naive", "tiled"])
@pytest.mark.parametrize("tiles", [(16, 32), (32, 16)], ids=["16x32", "32x16"])
def test_small_tiles_many_programs(tiles, version, device):
    # Many tiles along both dimensions of a small input.
    block_m, block_n = tiles
    x = random_tensor((50, 70), torch.float16, device, seed=block_m)
    if version == "naive":
        check(lambda t: tr.transpose_v1(t, block_n=block_n), x)
    else:
        check(lambda t: tr.transpose_v2(t, block_m=block_m, block_n=block_n), x)


@pytest.mark.parametrize("group_m", [1, 3, 8], ids=["group-1", "group-3", "group-8"])
def test_grouped_order_writes_every_tile_once(group_m, device):
    # 4 x 3 tiles of 16 x 32: groups of 3 tile rows leave a short last group
    # of one, and a group of 8 is taller than the matrix.
    x = random_tensor((50, 70), torch.float16, device, seed=group_m)
    check(lambda t: tr.transpose_v3(t, block_m=16, block_n=32, group_m=group_m), x)


def _layouts(device):
    base = random_tensor((70, 90), torch.float32, device, seed=21)
    return {
        "transposed": base.t(),
        "stepped-columns": base[:, ::3],
        "storage-offset": base[5:, 7:],
        "expanded-row": base[:1].expand(40, 90),
    }


@pytest.mark.parametrize("version", VERSIONS.keys())
@pytest.mark.parametrize(
    "layout", ["transposed", "stepped-columns", "storage-offset", "expanded-row"]
)
def test_any_strides(layout, version, device):
    check(VERSIONS[version], _layouts(device)[layout])


@pytest.mark.parametrize("version", VERSIONS.keys())
def test_empty(version, device):
    out = VERSIONS[version](torch.empty((0, 5), device=device))
    assert out.shape == (5, 0)


@pytest.mark.parametrize("version", VERSIONS.keys())
def test_special_values_move_bit_for_bit(version, device):
    # Stated behaviour: a copy, so NaN payloads, infinities and -0.0 survive.
    bits = torch.tensor(
        [0x7FC00001, 0xFFC0BEEF, 0x7F800000, 0xFF800000, 0x80000000, 0x3F800000],
        dtype=torch.int64,
    ).to(torch.int32)
    x = bits.view(torch.float32).reshape(2, 3).to(device)
    check(VERSIONS[version], x)


BAD = {
    "x-not-a-tensor": ([[1.0]], TypeError, "x must be a torch.Tensor"),
    "x-float64": (torch.ones(2, 2, dtype=torch.float64), TypeError, "x has dtype"),
    "x-int16": (torch.ones(2, 2, dtype=torch.int16), TypeError, "x has dtype"),
    "x-1d": (torch.ones(4), ValueError, r"x must be 2-D, got shape \(4,\)"),
    "x-3d": (torch.ones(1, 2, 2), ValueError, r"x must be 2-D, got shape"),
}


@pytest.mark.parametrize("version", VERSIONS.keys())
@pytest.mark.parametrize("case", BAD.keys())
def test_unsupported_input_is_rejected(case, version, device):
    x, error, message = BAD[case]
    if isinstance(x, torch.Tensor):
        x = x.to(device)
    with pytest.raises(error, match=message):
        VERSIONS[version](x)


def test_napkin_math():
    assert tr.bytes_moved(3, 5, 2) == 60
    assert tr.flops(3, 5) == 0


# Known-broken variants: each must fail the check that exists to catch it.


def _broken_assumes_contiguous(x):
    # Wrong: passes row-major strides whatever the layout really is.
    M, N = x.shape
    out = torch.empty((N, M), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    tr.transpose_v2_kernel[grid](x, out, M, N, N, 1, BLOCK_M=64, BLOCK_N=64)
    return out


def _broken_floor_grid(x):
    # Wrong: floor division leaves the edge tiles unwritten.
    M, N = x.shape
    out = torch.empty((N, M), dtype=x.dtype, device=x.device)
    grid = ((M // 64) * (N // 64),)
    tr.transpose_v2_kernel[grid](
        x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=64, BLOCK_N=64
    )
    return out


def test_broken_stride_handling_is_caught(device):
    x = random_tensor((70, 90), torch.float32, device, seed=22).t()
    with pytest.raises(AssertionError, match="elements differ"):
        check(_broken_assumes_contiguous, x)


def test_broken_floor_grid_is_caught(device):
    x = random_tensor((65, 130), torch.float32, device, seed=23)
    with pytest.raises(AssertionError, match="elements differ"):
        check(_broken_floor_grid, x)


def test_an_unknown_version_is_rejected():
    with pytest.raises(ValueError, match="version must be 'v1', 'v2' or 'v3'"):
        tr.launch_config(torch.float32, 4, 4, version="v4")
