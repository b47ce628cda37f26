"""Random inputs with no zeros, for tests, benchmarks and the evaluator.

Zeros make bad inputs: a kernel that never writes its output can pass on a
buffer that happens to hold zeros, and some hardware moves zeros faster.
"""

import zlib

import torch


def seed_for(*parts: object) -> int:
    """A stable seed from any parameters: every case gets its own data, and
    a failure reproduces on the next run."""
    return zlib.crc32(repr(parts).encode())


# --8<-- [start:nonzero-randn]
def nonzero_randn(
    shape: tuple[int, ...],
    dtype: torch.dtype,
    device: str | torch.device = "cpu",
    *,
    seed: int,
    positive: bool = False,
) -> torch.Tensor:
    """Normal values pushed at least 0.25 away from zero, keeping their sign
    (all positive when ``positive``). Drawn on ``device`` itself, so a GPU
    benchmark does not build gigabytes on the host first; the same seed gives
    the same values on the same kind of device."""
    generator = torch.Generator(device=device).manual_seed(seed)
    values = torch.randn(
        shape,
        generator=generator,
        dtype=torch.float32,
        device=device,
    )
    values = torch.where(values < 0, values - 0.25, values + 0.25)
    if positive:
        values = values.abs()
    return values.to(dtype)
    # --8<-- [end:nonzero-randn]


def nonzero_inputs(
    shapes: list[tuple[int, ...]],
    dtype: torch.dtype,
    device: str | torch.device,
    seed: int,
) -> tuple[torch.Tensor, ...]:
    """One tensor per shape, each from its own seed derived from ``seed``."""
    return tuple(
        nonzero_randn(shape, dtype, device, seed=seed_for(seed, i))
        for i, shape in enumerate(shapes)
    )
