"""A bitwise-repeatability test, and an atomic sum the interpreter cannot fault.

Shown on docs/kernels/memory-bound/deterministic-reductions.md. Evidence
kind: Triton interpreter (run with TRITON_INTERPRET=1 on a CPU). The
interpreter runs programs one after another in program-id order, so an
atomic sum is repeatable there too: it proves the two-stage kernel gives the
same bits every time, and it cannot show the atomic version failing to.
"""

import torch
import triton
import triton.language as tl

from kernels.reduction.versions import reduce_sum
from snippets.deterministic_reductions.orders import sample

N = 1000  # small and awkward: not a multiple of the block
BLOCK = 64  # several programs and two stages even at this size


# --8<-- [start:repeatable]
def bitwise_repeatable(fn, x: torch.Tensor, runs: int = 3) -> bool:
    """True when every run returns the same bits, not merely close values:
    compare the integer views, so that -0.0 != 0.0 and NaN payloads count."""
    first = fn(x).view(torch.int32)
    return all(torch.equal(fn(x).view(torch.int32), first) for _ in range(runs - 1))
    # --8<-- [end:repeatable]


# --8<-- [start:atomic]
@triton.jit
def atomic_sum_kernel(in_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # One launch: each program adds its partial into out_ptr[0]. On a GPU
    # the programs finish in no fixed order, so the float32 adds do too.
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    values = tl.load(in_ptr + offs, mask=offs < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(values, axis=0))


def atomic_sum_launch(x: torch.Tensor, block: int = BLOCK) -> torch.Tensor:
    out = torch.zeros(1, dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(x.numel(), block),)
    atomic_sum_kernel[grid](x, out, x.numel(), BLOCK_SIZE=block)
    return out.reshape(())
    # --8<-- [end:atomic]


def two_stage(x: torch.Tensor) -> torch.Tensor:
    return reduce_sum(x, block_size=BLOCK)


def interpreter_view() -> dict:
    """What the interpreter shows for both kernels on the same input."""
    x = torch.tensor(sample(N), dtype=torch.float32)
    return {
        "two_stage_repeatable": bitwise_repeatable(two_stage, x),
        "atomic_repeatable": bitwise_repeatable(atomic_sum_launch, x),
        "atomic": float(atomic_sum_launch(x)),
        "two_stage": float(two_stage(x)),
    }


if __name__ == "__main__":
    view = interpreter_view()
    print(f"{N} float32 values, blocks of {BLOCK}, under the Triton interpreter")
    print(f"two-stage kernel bitwise repeatable: {view['two_stage_repeatable']}")
    print(f"atomic kernel bitwise repeatable:    {view['atomic_repeatable']}")
    print(f"atomic kernel sum: {view['atomic']!r}")
    print(f"two-stage kernel sum: {view['two_stage']!r}")
    print("different orders, different last bits; each repeatable here")
