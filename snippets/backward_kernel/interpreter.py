"""The softmax backward kernel behind autograd, checked against autograd
(lesson: A backward kernel). Evidence kind: Triton interpreter (run with
TRITON_INTERPRET=1 on a CPU): values, not speed.

``TritonSoftmax`` is how a custom kernel joins autograd: the forward saves
its output y, not its input, and the backward hands y and dy to
kernels/softmax/versions.py's ``softmax_backward``.
"""

from __future__ import annotations

import torch

from kernels.softmax.versions import softmax, softmax_backward


# --8<-- [start:function]
class TritonSoftmax(torch.autograd.Function):
    """softmax over the last dimension with both passes in Triton."""

    @staticmethod
    def forward(ctx, x):
        y = softmax(x)
        ctx.save_for_backward(y)  # y is all the gradient needs
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        return softmax_backward(y, dy.contiguous())
        # --8<-- [end:function]


# --8<-- [start:check]
def check_against_autograd(rows: int, cols: int, seed: int = 0) -> tuple:
    """(largest gap, largest true gradient): the Triton gradient in float32
    against autograd through torch.softmax in float64."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, dtype=torch.float64, generator=gen)
    dy = torch.randn(rows, cols, dtype=torch.float64, generator=gen)
    x64 = x.clone().requires_grad_(True)
    (truth,) = torch.autograd.grad(torch.softmax(x64, dim=-1), x64, dy)
    x32 = x.float().requires_grad_(True)
    (ours,) = torch.autograd.grad(TritonSoftmax.apply(x32), x32, dy.float())
    return (ours.double() - truth).abs().max().item(), truth.abs().max().item()
    # --8<-- [end:check]


#: Awkward shapes: one column, a prime one past a power of two, and a
#: width that leaves part of its block as padding.
SHAPES = ((3, 1), (5, 257), (2, 1000))

if __name__ == "__main__":
    for rows, cols in SHAPES:
        gap, largest = check_against_autograd(rows, cols)
        print(f"{rows} x {cols}: largest gap {gap:.1e}, largest gradient {largest:.2f}")
