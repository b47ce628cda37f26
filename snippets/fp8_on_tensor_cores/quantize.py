"""Per-row FP8 quantisation in Triton, checked against torch.

Shown on docs/kernels/matrix-multiplication/fp8-on-tensor-cores.md.
Evidence kind: Triton interpreter (values, not speed). One program per row
finds the row's largest magnitude, derives the scale that maps it onto
e4m3's largest value, and writes the scaled, saturated row; a second kernel
multiplies FP8 values back by their row's scale.

The cast to FP8 itself stays in torch: under Triton 3.8's interpreter an
in-kernel ``.to(tl.float8e4nv)`` drops the carry when rounding up crosses a
power of two (127.8 became 64, not 128, in our check), while the upcast from
FP8 is exact. On a GPU the cast belongs inside the kernel.
"""

import torch
import triton
import triton.language as tl

E4M3_MAX = torch.finfo(torch.float8_e4m3fn).max


# --8<-- [start:reference]
def quantise_rows_ref(x: torch.Tensor):
    """(FP8 values, one float32 scale per row): x ≈ values * scale[:, None]."""
    amax = x.abs().amax(dim=1).clamp_min(torch.finfo(torch.float32).tiny)
    scale = amax / E4M3_MAX
    scaled = (x / scale[:, None]).clamp(-E4M3_MAX, E4M3_MAX)
    return scaled.to(torch.float8_e4m3fn), scale
    # --8<-- [end:reference]


# --8<-- [start:kernel]
@triton.jit
def quantise_rows_kernel(
    x_ptr, scaled_ptr, scale_ptr, K, FP8_MAX: tl.constexpr, BLOCK_K: tl.constexpr
):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_K)
    mask = offs < K
    x = tl.load(x_ptr + row * K + offs, mask=mask, other=0.0)  # K floats read
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), 1.1754943508222875e-38)
    scale = amax / FP8_MAX
    scaled = tl.clamp(x / scale, -FP8_MAX, FP8_MAX)  # saturate, never overflow
    tl.store(scaled_ptr + row * K + offs, scaled, mask=mask)
    tl.store(scale_ptr + row, scale)  # one float per row written


@triton.jit
def dequantise_rows_kernel(q_ptr, scale_ptr, out_ptr, K, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_K)
    mask = offs < K
    q = tl.load(q_ptr + row * K + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * K + offs, q * tl.load(scale_ptr + row), mask=mask)
    # --8<-- [end:kernel]


# --8<-- [start:launcher]
def quantise_rows(x: torch.Tensor):
    """Launch one program per row of a contiguous float32 matrix."""
    if x.dtype != torch.float32 or x.dim() != 2 or not x.is_contiguous():
        raise ValueError("quantise_rows needs a contiguous 2-D float32 tensor")
    rows, k = x.shape
    scaled = torch.empty_like(x)
    scale = torch.empty(rows, dtype=torch.float32, device=x.device)
    block_k = triton.next_power_of_2(k)
    quantise_rows_kernel[(rows,)](
        x, scaled, scale, k, FP8_MAX=E4M3_MAX, BLOCK_K=block_k
    )
    return scaled.to(torch.float8_e4m3fn), scale  # exact ties-to-even cast


def dequantise_rows(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    rows, k = q.shape
    out = torch.empty(rows, k, dtype=torch.float32, device=q.device)
    dequantise_rows_kernel[(rows,)](q, scale, out, k, BLOCK_K=triton.next_power_of_2(k))
    return out
    # --8<-- [end:launcher]


def demo(rows: int = 6, k: int = 100, seed: int = 0) -> dict:
    """Quantise an awkward shape (K not a power of two) with one outlier
    row; compare kernel and reference bit for bit."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, k, generator=g)
    x[1] *= 1000.0
    q, scale = quantise_rows(x)
    q_ref, scale_ref = quantise_rows_ref(x)
    back = dequantise_rows(q, scale)
    return {
        "bits_equal": torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8)),
        "scales_equal": torch.equal(scale, scale_ref),
        "worst_relative": ((back - x).abs() / x.abs().amax(dim=1, keepdim=True))
        .max()
        .item(),
        "row_max": q.float().abs().amax(dim=1).tolist(),
    }


if __name__ == "__main__":
    result = demo()
    print("FP8 bits equal to torch's:", result["bits_equal"])
    print("scales equal:", result["scales_equal"])
    print("largest |FP8| per row:", [f"{v:g}" for v in result["row_max"]])
    print(
        "worst error after dequantising, relative to the row's max:",
        f"{result['worst_relative']:.4f}",
    )
