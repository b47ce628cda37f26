"""Validates like the contract, then computes with PyTorch.

Why it must fail: every value is right, but no Triton kernel runs: a torch
fallback dressed up as a kernel. Only counting launches catches it.
Expected check: launches-kernel
"""

import torch


def _validate(x, residual):
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if value.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} has unsupported dtype {value.dtype}")
    if x.dtype != residual.dtype:
        raise TypeError(f"residual is {residual.dtype} but x is {x.dtype}")
    if x.shape != residual.shape:
        raise ValueError(
            f"residual has shape {tuple(residual.shape)}, x has {tuple(x.shape)}"
        )
    if x.device != residual.device:
        raise ValueError(f"residual is on {residual.device}, x on {x.device}")


def residual_add_relu(x, residual):
    _validate(x, residual)
    return torch.relu(x + residual)
