"""bfloat16 arithmetic under the Triton interpreter (page: Kernel Correctness
Contracts).

A kernel that adds two bfloat16 values without widening them is correct on a
GPU, where bfloat16 addition rounds the exact sum once. The interpreter used
on this project's CPUs gets it wrong: it adds the stored 16-bit patterns as
if they were integers. The test beside this file shows it, so the page's
statement fails the tests on the day a Triton release fixes it.
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:native-add]
@triton.jit
def native_add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)  # no .to(tl.float32)


# --8<-- [end:native-add]


def native_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    native_add_kernel[(triton.cdiv(a.numel(), 128),)](a, b, out, a.numel(), BLOCK=128)
    return out


def bit_pattern_sum(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """What adding the raw 16-bit patterns as integers gives, read back as
    bfloat16."""
    total = a.view(torch.int16).int() + b.view(torch.int16).int()
    return total.to(torch.int16).view(torch.bfloat16)


if __name__ == "__main__":
    a = torch.tensor([1.0, 2.0, 0.5], dtype=torch.bfloat16)
    b = torch.tensor([1.0, 0.25, 0.5], dtype=torch.bfloat16)
    a, b = a.to("cuda" if torch.cuda.is_available() else "cpu"), b.to(a.device)
    print("torch:          ", (a + b).tolist())
    print("native kernel:  ", native_add(a, b).tolist())
    print("bit patterns:   ", bit_pattern_sum(a.cpu(), b.cpu()).tolist())
