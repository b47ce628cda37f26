"""Adversarial input builders
(snippets/kernel_correctness_contracts/adversarial.py): each layout rebuilds
the values it was given, in the layout it claims."""

import math

import pytest
import torch

from snippets.kernel_correctness_contracts import adversarial as adv


def values():
    return adv.random_values((5, 7), torch.float32, seed=1)


def filler():
    return adv.random_values((200,), torch.float32, seed=2) * 7


@pytest.mark.parametrize(
    "build, stride, offset",
    [
        (lambda v: adv.contiguous(v), (7, 1), 0),
        (lambda v: adv.transposed(v), (1, 5), 0),
        (lambda v: adv.with_offset(v, 9, filler()), (7, 1), 9),
        (lambda v: adv.stepped(v, 3, filler()), (21, 3), 0),
    ],
    ids=["contiguous", "transposed", "offset", "stepped"],
)
def test_layouts_hold_the_values_in_the_claimed_layout(build, stride, offset):
    v = values()
    view = adv.view_of(build(v))
    assert torch.equal(view, v)
    assert view.stride() == stride and view.storage_offset() == offset


def test_gaps_and_surroundings_hold_other_values():
    v = values()
    offset = adv.with_offset(v, 9, filler())["base"]
    assert not torch.isin(offset[:9], v).any()
    stepped = adv.stepped(v, 3, filler())["base"].reshape(5, 21)
    assert not torch.isin(stepped[:, 1::3], v).any()


def test_broadcast_row_has_one_row_of_storage():
    row = adv.random_values((4,), torch.float32, seed=3)
    spec = adv.broadcast_rows(row, 6)
    view = adv.view_of(spec)
    assert view.stride() == (0, 1) and spec["base"].numel() == 4
    assert torch.equal(view, row.expand(6, 4))


def test_channels_last_is_stored_channel_fastest():
    v = adv.random_values((2, 3, 4, 5), torch.float16, seed=4)
    view = adv.view_of(adv.channels_last(v))
    assert torch.equal(view, v) and view.stride()[1] == 1


def test_random_values_are_never_zero():
    mixed = adv.random_values((10_000,), torch.bfloat16, seed=5)
    positive = adv.random_values((10_000,), torch.bfloat16, seed=5, positive=True)
    assert (mixed.abs() >= 0.25).all() and (mixed < 0).any()
    assert (positive >= 0.25).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_special_values_reach_every_kind_of_result(dtype):
    x, residual = adv.with_special_values(1031, dtype, seed=6)
    out = torch.relu(x + residual)
    assert out[0].isnan() and out[-1] == 0  # first and last are special
    assert int(out.isnan().sum()) == 6
    assert (out == math.inf).any()
    zeros = out == 0
    assert (zeros & out.signbit()).any() and (zeros & ~out.signbit()).any()
