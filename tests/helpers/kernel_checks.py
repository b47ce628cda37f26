"""Shared helpers for the kernel tests: inputs, snapshots and tolerances.

Tests import it as ``tests.helpers.kernel_checks``: pytest runs with
``--import-mode=importlib`` and ``pythonpath = ["."]``, so ``tests`` imports
as a namespace package from the repository root.

Tolerances are stated per dtype together with the reason. Where the Triton
interpreter differs from a GPU, the reason says so: the interpreter rounds
float32 to bfloat16 by truncation (Triton 3.6 and 3.8), while the GPU and
PyTorch round to nearest even, so a correct bf16 kernel can differ from
PyTorch by one bf16 ulp under the interpreter only.
"""

import os
from dataclasses import dataclass

import torch

# seed_for is re-exported: the tests import it from here.
from kernels.inputs import nonzero_randn, seed_for  # noqa: F401

#: True when kernels run in the Triton interpreter (the CPU test machines).
INTERPRETER = os.environ.get("TRITON_INTERPRET", "0") == "1"

#: Spacing of bfloat16 numbers relative to the value: 8 significand bits.
BF16_RELATIVE_ULP = 2.0**-7

#: Integer dtypes of the same width, for bit-by-bit comparisons.
_SAME_WIDTH_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@dataclass(frozen=True)
class Tolerance:
    """Bounds for ``torch.testing.assert_close`` and why they are what they are."""

    atol: float
    rtol: float
    why: str


EXACT = Tolerance(0.0, 0.0, "the kernel rounds once, exactly as PyTorch does")


def random_tensor(
    shape: tuple[int, ...],
    dtype: torch.dtype,
    device: str,
    *,
    seed: int,
    positive: bool = False,
) -> torch.Tensor:
    """Fresh random values with no zeros: normal with mixed signs, or strictly
    positive when ``positive`` (so a result that should be non-zero cannot
    hide an unwritten output that happens to hold zeros). Drawn on the CPU and
    then moved, so a case gets the same values on every device."""
    values = nonzero_randn(shape, dtype, "cpu", seed=seed, positive=positive)
    return values.to(device)


def bit_snapshot(tensor: torch.Tensor) -> torch.Tensor:
    """A copy of the tensor's bits (NaN payloads and signed zeros included)."""
    as_int = _SAME_WIDTH_INT[tensor.element_size()]
    return tensor.detach().clone().contiguous().view(as_int).cpu()


def assert_bits_unchanged(tensor: torch.Tensor, before: torch.Tensor, name: str):
    """Fail naming ``name`` if the tensor's bits differ from the snapshot."""
    after = bit_snapshot(tensor)
    changed = int((after != before).sum())
    assert changed == 0, f"{name} was modified: {changed} elements changed"


def dirty_freed_memory(nbytes: int, device: str, copies: int = 4) -> None:
    """Fill memory the allocator is likely to hand out next with 0xFF bytes
    (NaN for every float dtype), then free it. Without this, an output buffer
    can reuse the reference's freed temporaries and hide an unwritten tail."""
    dirt = [
        torch.full((max(nbytes, 1),), 0xFF, dtype=torch.uint8, device=device)
        for _ in range(copies)
    ]
    del dirt


def assert_plain_result(
    out: object, expected: torch.Tensor, inputs: tuple[torch.Tensor, ...]
):
    """The output is a new tensor of the expected shape, dtype and device that
    shares no memory with any input."""
    assert type(out) is torch.Tensor, f"output is a {type(out).__name__}"
    assert out.shape == expected.shape, f"shape {out.shape} != {expected.shape}"
    assert out.dtype == expected.dtype, f"dtype {out.dtype} != {expected.dtype}"
    assert out.device == expected.device, f"device {out.device}"
    for tensor in inputs:
        if out.numel() and tensor.numel():
            assert out.untyped_storage().data_ptr() != (
                tensor.untyped_storage().data_ptr()
            ), "output aliases an input"


def assert_close(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance):
    """Compare values, with NaN required at exactly the same positions."""
    torch.testing.assert_close(
        actual,
        expected,
        atol=tol.atol,
        rtol=tol.rtol,
        equal_nan=True,
        msg=lambda m: f"{m}\ntolerance: {tol}",
    )


#: Spacing of numbers just above 1.0, per dtype (one ulp, relative).
RELATIVE_ULP = {
    torch.float32: 2.0**-23,
    torch.float16: 2.0**-10,
    torch.bfloat16: BF16_RELATIVE_ULP,
}


def summation_bound(
    abs_partial_sums: torch.Tensor, exact: torch.Tensor, levels: int, dtype
) -> torch.Tensor:
    """Worst-case error of a float32 sum computed in ``levels`` rounds of
    additions (a tree of depth ``levels``), then rounded once to ``dtype``.

    Each round can add one float32 rounding error relative to the sum of the
    magnitudes involved (``abs_partial_sums``); the final rounding costs up to
    one ulp of ``dtype`` (a full ulp, not half, because the interpreter
    truncates to bfloat16 instead of rounding to nearest)."""
    float32_part = levels * RELATIVE_ULP[torch.float32] * abs_partial_sums
    return float32_part + RELATIVE_ULP[dtype] * exact.abs()


def assert_within(
    actual: torch.Tensor, exact: torch.Tensor, bound: torch.Tensor, what: str
):
    """Elementwise ``|actual - exact| <= bound`` (exact in float64), with NaN
    required at exactly the same positions and infinities matching."""
    actual64 = actual.detach().cpu().double()
    exact = exact.cpu()
    nan_actual, nan_exact = actual64.isnan(), exact.isnan()
    assert torch.equal(nan_actual, nan_exact), f"{what}: NaN positions differ"
    inf = exact.isinf() | actual64.isinf()
    assert torch.equal(actual64[inf], exact[inf]), f"{what}: infinities differ"
    finite = ~(nan_exact | inf)
    error = (actual64 - exact).abs()[finite]
    allowed = bound.cpu().double()[finite]
    worst = (error - allowed).max() if error.numel() else torch.tensor(-1.0)
    assert worst <= 0, (
        f"{what}: {int((error > allowed).sum())} of {error.numel()} elements "
        f"outside the bound; worst excess {float(worst):.3g}"
    )
