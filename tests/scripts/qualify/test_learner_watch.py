"""scripts/qualify/learner_watch.py: what one launch did, under the interpreter."""

import os

import torch
import triton
import triton.language as tl

from scripts.qualify.learner_watch import watched

HERE = os.path.realpath(__file__)


@triton.jit
def _atomics_kernel(out_ptr, count_ptr):
    tl.store(out_ptr, 1.0)
    tl.atomic_add(count_ptr, 1)
    tl.atomic_add(out_ptr + 1, 2.0)


@triton.jit
def _dot_kernel(a_ptr, out_ptr, IEEE: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    if IEEE:
        d = tl.dot(a, a, input_precision="ieee")
    else:
        d = tl.dot(a, a)
    tl.store(out_ptr + r[:, None] * 16 + r[None, :], d)


def test_stores_atomics_and_their_kinds_are_seen():
    out, count = torch.zeros(2), torch.zeros(1, dtype=torch.int32)
    with watched(out, {}, HERE) as seen:
        _atomics_kernel[(1,)](out, count)
    summary = seen.summary()
    assert summary["stored"] and not summary["foreign"]
    assert summary["atomics"] == [
        ("a buffer of your own", "add", False),
        ("out", "fadd", True),
    ]


def test_a_store_from_another_file_is_not_the_learners():
    out = torch.zeros(2)
    with watched(out, {}, "/somewhere/else.py") as seen:
        _atomics_kernel[(1,)](out, torch.zeros(1, dtype=torch.int32))
    assert not seen.stored and seen.foreign == HERE


def test_a_float32_dot_names_its_input_precision():
    a, out = torch.randn(16, 16), torch.empty(16, 16)
    for ieee, expected in ((True, ["ieee"]), (False, ["tf32"])):
        with watched(out, {"a": a}, HERE) as seen:
            _dot_kernel[(1,)](a, out, IEEE=ieee)
        assert seen.summary()["dots"] == expected


def test_torch_alone_stores_nothing_seen():
    out = torch.zeros(4)
    with watched(out, {}, HERE) as seen:
        out.copy_(torch.ones(4))
    assert not seen.stored and not seen.foreign
