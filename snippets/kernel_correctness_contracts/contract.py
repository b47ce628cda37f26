"""The contract of ``residual_add_relu(x, residual)`` as data and comparisons
(pages: Kernel Correctness Contracts, Triton qualification project).

The evaluator, ``scripts/qualify/``, enforces exactly what is written here:
the tolerance per dtype and why, how values and NaN are compared, how inputs
are checked bit by bit, and what an error message must contain.

The site build imports this file for the tolerance table, and the build never
imports torch: dtypes are named by their formats here, and the comparisons use
the methods of the tensors they are given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evidence.tables import markdown_table

if TYPE_CHECKING:
    import torch

# Stored fraction bits of each format (IEEE 754 binary32, binary16 and
# binary64; bfloat16 is binary32's upper half); the significand has one more,
# implicit, bit and the spacing just above 1.0 (eps) is 2**-fraction_bits.
FRACTION_BITS = {"float32": 23, "float16": 10, "bfloat16": 7, "float64": 52}
SUPPORTED_DTYPES = ("float32", "float16", "bfloat16")


def dtype_name(dtype: torch.dtype | str) -> str:
    """'bfloat16' for torch.bfloat16, and for 'bfloat16' itself."""
    return str(dtype).removeprefix("torch.")


def eps(dtype: torch.dtype | str) -> float:
    """torch.finfo(dtype).eps, from the format's definition."""
    return 2.0 ** -FRACTION_BITS[dtype_name(dtype)]


# --8<-- [start:tolerance]
@dataclass(frozen=True)
class Tolerance:
    """Allowed distance from the reference in units in the last place (ulp)
    of the output dtype, on a GPU and under the Triton interpreter."""

    gpu_ulps: int
    interpreter_ulps: int
    why: str


TOLERANCES = {
    "float32": Tolerance(0, 0, "one add, rounded once, as eager PyTorch"),
    "float16": Tolerance(
        0, 0, "a float32 sum rounded to float16 equals the native float16 sum"
    ),
    "bfloat16": Tolerance(
        0, 1, "the interpreter truncates float32 to bfloat16 instead of rounding"
    ),
}


def allowed_ulps(dtype: torch.dtype | str, interpreter: bool) -> int:
    tolerance = TOLERANCES[dtype_name(dtype)]
    return tolerance.interpreter_ulps if interpreter else tolerance.gpu_ulps


# --8<-- [end:tolerance]


# --8<-- [start:compare]
def value_mismatch(out: torch.Tensor, ref: torch.Tensor, ulps: int) -> str | None:
    """Where the reference is a number, the output must be within `ulps` of
    it (a NaN there is a mismatch). None when every such element matches."""
    if bits(out).equal(bits(ref)):  # the common case, checked fast
        return None
    out64, ref64 = out.double(), ref.double()
    bound = ulps * eps(ref.dtype) * ref64.abs()
    # Infinities must match exactly: inf - inf is NaN, and a bound of inf
    # would accept anything.
    close = (out64 == ref64) | (ref64.isfinite() & ((out64 - ref64).abs() <= bound))
    wrong = ~ref64.isnan() & ~close
    if not wrong.any():
        return None
    first = tuple(int(i) for i in wrong.nonzero()[0])
    return (
        f"{int(wrong.sum())} of {ref.numel()} elements differ by more than "
        f"{ulps} ulp; first at index {first}: expected "
        f"{ref64[first].item():.6g}, got {out64[first].item():.6g}"
    )


def nan_mismatch(out: torch.Tensor, ref: torch.Tensor) -> str | None:
    """Where the reference is NaN (torch.relu keeps NaN), so is the output."""
    lost = ref.isnan() & ~out.isnan()
    if not lost.any():
        return None
    first = tuple(int(i) for i in lost.nonzero()[0])
    return (
        f"{int(lost.sum())} of {int(ref.isnan().sum())} NaN results "
        f"lost; first at index {first}: expected nan, got "
        f"{out.double()[first].item():.6g}"
    )


# --8<-- [end:compare]


# --8<-- [start:bits]
def bits(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor's raw bits as integers: NaN payloads and the sign of zero
    count, and NaN equals NaN."""
    import torch  # here, not at the top: the site build reads this file

    same_width_int = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    return tensor.detach().contiguous().view(same_width_int[tensor.element_size()])


def bits_changed(before: torch.Tensor, after: torch.Tensor) -> int:
    """How many elements differ bit for bit."""
    return int((bits(before) != bits(after)).sum())


# --8<-- [end:bits]


# --8<-- [start:names-argument]
ARGUMENT_NAMES = ("x", "residual")


def names_argument(message: str, allowed: tuple[str, ...] = ARGUMENT_NAMES) -> bool:
    """True if the message names one of the arguments as a whole word:
    "residual has dtype float64" does, "unsupported dtype" does not, and the
    x in "x_ptr" does not count."""
    return any(re.search(rf"(?<![\w.]){name}(?![\w])", message) for name in allowed)


# --8<-- [end:names-argument]


def ulp_table() -> str:
    """The tolerance table as Markdown (inserted on the pages)."""
    header = ["dtype", "on a GPU", "under the interpreter", "why"]
    rows = [
        (f"`{name}`", _ulps(tol.gpu_ulps), _ulps(tol.interpreter_ulps), tol.why)
        for name, tol in TOLERANCES.items()
    ]
    return markdown_table(header, rows, escape=False) + "\n"


def significand_bits(dtype: torch.dtype | str) -> int:
    """Significand bits including the implicit one: eps is 2**(1 - bits)."""
    return FRACTION_BITS[dtype_name(dtype)] + 1


def fmt_significand_bits() -> str:
    """For the page: how many significand bits each supported dtype has."""
    bits, names = [], []
    for dtype in SUPPORTED_DTYPES:
        bits.append(significand_bits(dtype))
        names.append(f"`{dtype}`")
    return (
        f"{names[0]} carries {bits[0]}, {names[1]} {bits[1]} and {names[2]} {bits[2]}"
    )


def _ulps(count: int) -> str:
    return "exact" if count == 0 else f"{count} ulp"


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "significand-bits": fmt_significand_bits(),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    import torch

    print(ulp_table())
    reference = torch.tensor([1.0, float("nan"), 0.0, float("inf")])
    output = torch.tensor([1.0, 0.0, 0.5, float("inf")])
    print("values:", value_mismatch(output, reference, ulps=0))
    print("NaN:   ", nan_mismatch(output, reference))
    print("names x:", names_argument("x has dtype torch.float64"))
    print("names x:", names_argument("unsupported dtype"))
