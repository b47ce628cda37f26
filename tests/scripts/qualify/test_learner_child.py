"""The child's buffers: guards around inputs, a sentinel-filled output."""

import torch

from scripts.qualify import learner_child as child


def test_an_input_sits_between_nan_guards():
    base = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    inside = child.guarded(base, 4)
    assert torch.equal(inside, base)
    whole = inside.untyped_storage()
    raw = torch.tensor([], dtype=torch.float32).set_(whole)
    assert raw[:4].isnan().all() and raw[-4:].isnan().all()


def test_the_output_starts_as_the_sentinel_with_guards_both_sides():
    out, buffer = child.fresh_out((3, 2), torch.int32, 0x7F, 5)
    assert out.shape == (3, 2)
    assert (buffer.view(torch.uint8) == 0x7F).all()
    # Every byte of 5 int32 elements either side (it was 5 bytes a side).
    assert child._guard_bytes(buffer, 5).numel() == 2 * 5 * 4
