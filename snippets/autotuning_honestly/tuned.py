"""An autotuned Triton kernel whose choice a test can inspect.

Shown on docs/kernels/to-the-service/autotuning-honestly.md. Evidence kind:
Triton interpreter. The interpreter cannot time a GPU, so the autotuner is
given a ``do_bench`` that returns a *toy cost* per config instead of a
timing: the choice is then deterministic and the test can check it. The
toy cost is not a device's speed and no speed is claimed; what the file
shows is the mechanism: every config run once per key, the winner cached
under the key, and what the key leaves out.
"""

import math

import torch
import triton
import triton.language as tl

from kernels.launches import record_launches

CONFIGS = [
    triton.Config({"BLOCK": block}, num_warps=warps)
    for block in (64, 128, 256)
    for warps in (1, 4)
]


# --8<-- [start:toy-cost]
def toy_cost(n: int, block: int, num_warps: int) -> float:
    """A stand-in for a timing: one unit per program, a penalty when a block
    is spread over many warps (each thread gets too little work), and one
    for masked lanes in the last block. Invented so the winner is known; it
    models no device."""
    programs = math.ceil(n / block)
    masked = programs * block - n
    return programs * (1 + 0.5 * num_warps * 32 / block) + 0.005 * masked


def toy_bench(kernel_call, quantiles):
    """The autotuner calls do_bench(kernel_call, quantiles) once per config
    and keeps the config whose result is smallest. kernel_call does not say
    which config it runs, so record the launch to find out."""
    with record_launches() as log:
        kernel_call()  # the config really runs: a wrong one fails here
    launch = log.launches()[-1]
    n = TOY_SIZE["n"]
    cost = toy_cost(n, launch.constexprs["BLOCK"], launch.num_warps)
    return [cost for _ in quantiles]


TOY_SIZE = {"n": 0}  # the size the toy cost is evaluated at, set per call
# --8<-- [end:toy-cost]


# --8<-- [start:kernel]
@triton.autotune(configs=CONFIGS, key=["n"], do_bench=toy_bench)
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, stride, factor, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)  # n values read
    tl.store(out_ptr + offs, x * factor, mask=mask)  # n values written


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    """out = x * factor for a 1-D tensor of any stride."""
    if x.dim() != 1:
        raise ValueError("scale needs a 1-D tensor")
    out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
    n = x.shape[0]
    TOY_SIZE["n"] = n
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    scale_kernel[grid](x, out, n, x.stride(0), factor)
    return out
    # --8<-- [end:kernel]


def reset() -> None:
    """Forget every tuned choice, as a fresh process would."""
    scale_kernel.cache.clear()


def expected_best(n: int) -> dict:
    """The config the toy cost ranks first, computed without Triton."""
    best = min(CONFIGS, key=lambda c: toy_cost(n, c.kwargs["BLOCK"], c.num_warps))
    return {"BLOCK": best.kwargs["BLOCK"], "num_warps": best.num_warps}


def chosen(n: int, dtype: torch.dtype = torch.float32) -> dict:
    """Run once at size n; what the autotuner picked."""
    scale(torch.arange(n, dtype=dtype), 2.0)
    best = scale_kernel.best_config
    return {"BLOCK": best.kwargs["BLOCK"], "num_warps": best.num_warps}


# --8<-- [start:first-call-launches]
def first_call_launches(n: int) -> list:
    """Every launch the first call makes: one per config while tuning, then
    the winner's real launch (distinct launches, first-seen order)."""
    reset()
    with record_launches() as log:
        scale(torch.arange(n, dtype=torch.float32), 2.0)
    return log.launches()
    # --8<-- [end:first-call-launches]


if __name__ == "__main__":
    reset()
    for n in (1000, 100):
        print(f"n={n}: chose {chosen(n)}; toy-cost best {expected_best(n)}")
    print("tuned keys:", sorted(scale_kernel.cache))
    x = torch.arange(2000, dtype=torch.float32)[::2]  # same n, stride 2
    out = scale(x, 2.0)
    print(
        "strided input, keys now:",
        len(scale_kernel.cache),
        "| correct:",
        torch.equal(out, 2 * x),
    )
    print("launches in a fresh first call:", len(first_call_launches(1000)))
