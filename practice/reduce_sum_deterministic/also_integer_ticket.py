"""Right, and unusual: one launch. Each program stores its partial sum, then
draws an integer ticket with an atomic add; the program that draws the last
ticket adds every partial in index order. The atomic is on an integer
counter, not on the sum, so the order of arrival changes who combines, never
the order of the additions: the same bits every run.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def ticket_sum_kernel(
    x_ptr, partial_ptr, ticket_ptr, out_ptr, n, count,
    BLOCK: tl.constexpr, NB: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))
    # acq_rel: this program's partial is visible before its ticket is.
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == count - 1:  # the last to arrive: every partial is stored
        idx = tl.arange(0, NB)
        partials = tl.load(partial_ptr + idx, mask=idx < count, other=0.0)
        tl.store(out_ptr, tl.sum(partials, axis=0))  # a fixed tree, by index


def reduce_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    n, BLOCK = x.numel(), 1024
    count = triton.cdiv(n, BLOCK)
    partial = torch.empty(count, dtype=torch.float32, device=x.device)
    ticket = torch.zeros(1, dtype=torch.int32, device=x.device)
    ticket_sum_kernel[(count,)](
        x, partial, ticket, out, n, count,
        BLOCK=BLOCK, NB=triton.next_power_of_2(count),
    )  # fmt: skip
