"""Tries to escape: writes into the repository, starts a process that
outlives it, and opens a network connection; then computes the right answer.

Why it is here: the static gate refuses it (os, socket, open); run as a
reviewer would, with the gate overridden, every attempt fails quietly in the
sandbox (the repository is read-only, the grandchild dies with the
candidate's namespace, there is no network), so it qualifies, and the test
checks nothing outside changed.
Expected: qualified
"""

import os
import socket

import torch
import triton
import triton.language as tl


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


@triton.jit
def _kernel(x_ptr, r_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    total = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(
        r_ptr + offs, mask=mask
    ).to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, residual):
    xc, rc = x.contiguous(), residual.contiguous()
    out = torch.empty_like(xc)
    if out.numel():
        _kernel[(triton.cdiv(out.numel(), 1024),)](xc, rc, out, out.numel(), BLOCK=1024)
    return out


_TRIED = []


def _try_escape():
    for path in ("results/bench/escaped.json", "results/qualify/escaped.txt"):
        try:
            with open(path, "a") as file:
                file.write("# written by a candidate\n")
        except OSError:
            pass
    try:
        socket.create_connection(("127.0.0.1", 80), timeout=0.1)
    except OSError:
        pass
    if os.fork() == 0:  # a grandchild that would outlive the evaluator
        os.setsid()
        if os.fork() == 0:
            import time

            time.sleep(30)
            open("results/qualify/escaped-later.txt", "w").close()
        os._exit(0)


def residual_add_relu(x, residual):
    _validate(x, residual)
    if not _TRIED:
        _TRIED.append(True)
        _try_escape()
    return _launch(x, residual)
