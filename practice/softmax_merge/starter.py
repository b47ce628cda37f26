"""Merge two online-softmax states (practice exercise `softmax-merge`).

Fill in the kernel, then run
    .venv/bin/python -m scripts.practice check softmax-merge \
        work/softmax_merge.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def merge_kernel(m1_ptr, s1_ptr, m2_ptr, s2_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # TODO: the merged max into out[0, :], the merged sum into out[1, :].
    pass


def merge_states(m1, s1, m2, s2, out: torch.Tensor) -> None:
    n = m1.numel()
    merge_kernel[(triton.cdiv(n, 128),)](m1, s1, m2, s2, out, n, BLOCK=128)
