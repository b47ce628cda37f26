"""Adversarial inputs for an elementwise kernel: values that expose unwritten
outputs, special values, and layouts a flat kernel gets wrong (pages: Kernel
Correctness Contracts, Triton qualification project).

Every builder returns plain CPU tensors; the evaluator (``scripts/qualify/``)
moves them to the device under test, layout included.
"""

from __future__ import annotations

import math

import torch

from kernels.inputs import nonzero_randn


# --8<-- [start:values]
def random_values(
    shape: tuple[int, ...], dtype: torch.dtype, seed: int, positive: bool = False
) -> torch.Tensor:
    """Normal values at least 0.25 away from zero, never zero.

    With `positive`, every x + residual is above zero, so relu changes
    nothing and an output element the kernel never wrote (holding 0 or
    leftover memory) cannot match the reference by luck. With mixed signs,
    about half the results are 0: a tail left unwritten in zeroed memory
    would pass a mixed-sign test."""
    return nonzero_randn(shape, dtype, "cpu", seed=seed, positive=positive)


# --8<-- [end:values]


# --8<-- [start:special-values]
def special_pairs(dtype: torch.dtype) -> list[tuple[float, float]]:
    """(x, residual) pairs whose relu(x + residual) is NaN, infinite, an
    overflow, a signed zero or the smallest normal number."""
    nan, inf = math.nan, math.inf
    big = torch.finfo(dtype).max
    tiny = torch.finfo(dtype).tiny  # smallest normal number
    nan_wins = [(nan, 1.0), (1.0, nan), (nan, -inf), (-2.0, nan)]
    infinities = [(inf, -inf), (-inf, inf), (inf, 1.0), (-inf, 1.0)]
    overflow = [(big, big), (-big, -big), (big, -big), (inf, inf)]
    signed_zeros = [(-0.0, -0.0), (0.0, -0.0), (-0.0, 0.0)]
    small = [(tiny, tiny), (-tiny, tiny), (1.0, -1.0), (-inf, -inf)]
    return nan_wins + infinities + overflow + signed_zeros + small


def with_special_values(
    numel: int, dtype: torch.dtype, seed: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random inputs with the special pairs placed at the first and last
    elements and spread through the middle (the tail of a block included)."""
    x = random_values((numel,), torch.float32, seed)
    residual = random_values((numel,), torch.float32, seed + 1)
    pairs = special_pairs(dtype)
    positions = torch.linspace(0, numel - 1, len(pairs)).round().long()
    for (x_value, r_value), where in zip(pairs, positions.tolist(), strict=True):
        x[where], residual[where] = x_value, r_value
    return x.to(dtype), residual.to(dtype)


# --8<-- [end:special-values]


# --8<-- [start:layouts]
def strided(base: torch.Tensor, size: tuple, stride: tuple, offset: int = 0) -> dict:
    """A view described by its storage: the evaluator rebuilds it on the
    device with as_strided, so the layout survives the move (`.to("cuda")`
    would make a strided view contiguous)."""
    return {
        "base": base.reshape(-1).clone(),
        "size": list(size),
        "stride": list(stride),
        "offset": offset,
    }


def contiguous(values: torch.Tensor) -> dict:
    return strided(values, values.shape, values.stride())


def transposed(values: torch.Tensor) -> dict:
    """A 2-D tensor stored column by column: what `.t()` of a row-major
    matrix gives. Flat pointer arithmetic reads it in the wrong order."""
    rows, cols = values.shape
    return strided(values.t().contiguous(), (rows, cols), (1, rows))


def with_offset(values: torch.Tensor, front: int, filler: torch.Tensor) -> dict:
    """A view that starts `front` elements into its storage, surrounded by
    other values: a kernel that ignores the offset reads the filler."""
    flat = values.reshape(-1)
    base = torch.cat([filler[:front], flat, filler[front : 2 * front]])
    return strided(base, values.shape, values.stride(), offset=front)


def stepped(values: torch.Tensor, step: int, filler: torch.Tensor) -> dict:
    """Every `step`-th column of a wider matrix, as `wide[:, ::step]`: the
    skipped columns hold the filler."""
    rows, cols = values.shape
    wide = filler[: rows * cols * step].reshape(rows, cols * step).clone()
    wide[:, ::step] = values
    return strided(wide, (rows, cols), (cols * step, step))


def broadcast_rows(row: torch.Tensor, rows: int) -> dict:
    """One row repeated by a zero stride, as `row.expand(rows, -1)`: its
    storage holds a single row, so a flat kernel reads past its end."""
    return strided(row, (rows, row.numel()), (0, 1))


def channels_last(values: torch.Tensor) -> dict:
    """A 4-D (N, C, H, W) tensor stored as (N, H, W, C)."""
    n, c, h, w = values.shape
    base = values.permute(0, 2, 3, 1).contiguous()
    return strided(base, (n, c, h, w), (h * w * c, 1, w * c, c))


def view_of(spec: dict, device: str = "cpu") -> torch.Tensor:
    """The tensor a layout describes, on `device`."""
    base = spec["base"].to(device)
    return base.as_strided(spec["size"], spec["stride"], spec["offset"])


# --8<-- [end:layouts]


if __name__ == "__main__":
    values = random_values((3, 4), torch.float32, seed=0)
    for name, spec in [
        ("contiguous", contiguous(values)),
        ("transposed", transposed(values)),
        ("offset", with_offset(values, 5, random_values((40,), torch.float32, 1))),
        ("stepped", stepped(values, 2, random_values((40,), torch.float32, 2))),
    ]:
        view = view_of(spec)
        assert torch.equal(view, values), name
        print(
            f"{name:>10}: size {tuple(view.shape)}, stride {view.stride()}, "
            f"offset {view.storage_offset()}"
        )
    x, residual = with_special_values(23, torch.float16, seed=3)
    print("special relu(x + residual):", torch.relu(x + residual).tolist())
