"""A chained scan that waits: each program takes a ticket as its block
number, waits until block b - 1 has raised its flag, loads that block's
carry, scans its own block, stores its carry and raises its own flag.

Why it must pass: the flag is set by a release (the default acq_rel
atomic exchange) after the carry is stored, and read by an acquire before
the carry is loaded, so the carry is there when it is loaded; the ticket
makes every block it waits for belong to a program already running. One
block at a time is slow, but the contract is about values, not speed.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.jit
def flagged_kernel(
    x_ptr, out_ptr, carry_ptr, flag_ptr, ticket_ptr, n, BLOCK: tl.constexpr
):
    block = tl.atomic_add(ticket_ptr, 1)
    offs = block.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    carry = tl.zeros((), tl.float32)
    if block > 0:
        while tl.atomic_add(flag_ptr + block - 1, 0, sem="acquire") == 0:
            pass
        carry = tl.load(carry_ptr + block - 1)
    prefix = tl.cumsum(x, axis=0) + carry
    tl.store(out_ptr + offs, prefix.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(carry_ptr + block, carry + tl.sum(x, axis=0))
    tl.atomic_xchg(flag_ptr + block, 1, sem="release")


def cumsum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    if x.dim() != 1:
        raise ValueError(f"x must be 1-D, got shape {tuple(x.shape)}")
    values = x.contiguous()
    out = torch.empty_like(values)
    blocks = triton.cdiv(values.numel(), 1024)
    if blocks:
        carries = torch.empty(blocks, dtype=torch.float32, device=x.device)
        flags = torch.zeros(blocks, dtype=torch.int32, device=x.device)
        ticket = torch.zeros(1, dtype=torch.int32, device=x.device)
        flagged_kernel[(blocks,)](
            values, out, carries, flags, ticket, values.numel(), BLOCK=1024
        )
    return out
