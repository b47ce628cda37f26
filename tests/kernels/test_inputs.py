"""Random inputs with no zeros (kernels/inputs.py)."""

import pytest
import torch

from kernels.inputs import nonzero_inputs, nonzero_randn, seed_for

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_never_zero_and_at_least_a_quarter_from_it(dtype):
    values = nonzero_randn((257, 33), dtype, seed=seed_for("never-zero", dtype))
    assert values.dtype == dtype and values.shape == (257, 33)
    assert (values != 0).all()
    assert (values.float().abs() >= 0.25).all()


def test_sign_is_kept():
    # The shift moves each value away from zero: its sign is the draw's.
    seed = seed_for("sign")
    drawn = torch.randn(
        (4099,), generator=torch.Generator().manual_seed(seed), dtype=torch.float32
    )
    values = nonzero_randn((4099,), torch.float32, seed=seed)
    assert torch.equal(values.sign(), drawn.sign())
    assert torch.equal(values, drawn + 0.25 * drawn.sign())
    assert (values < 0).any() and (values > 0).any()


def test_positive_flag_gives_only_positive_values():
    seed = seed_for("positive")
    values = nonzero_randn((4099,), torch.float32, seed=seed, positive=True)
    assert (values >= 0.25).all()
    signed = nonzero_randn((4099,), torch.float32, seed=seed)
    assert torch.equal(values, signed.abs())


def test_same_seed_same_values_other_seed_other_values():
    a = nonzero_randn((255,), torch.bfloat16, seed=7)
    b = nonzero_randn((255,), torch.bfloat16, seed=7)
    c = nonzero_randn((255,), torch.bfloat16, seed=8)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_seed_for_is_stable_and_tells_cases_apart():
    assert seed_for("softmax", 3, 1031) == seed_for("softmax", 3, 1031)
    assert seed_for("softmax", 3, 1031) != seed_for("softmax", 1031, 3)
    assert isinstance(seed_for(), int)


def test_nonzero_inputs_gives_each_input_its_own_seed():
    shapes = [(17,), (17,), (2, 3)]
    x, y, z = nonzero_inputs(shapes, torch.float32, "cpu", seed=11)
    assert [t.shape for t in (x, y, z)] == [(17,), (17,), (2, 3)]
    assert not torch.equal(x, y)  # same shape, different data
    for i, t in enumerate((x, y, z)):
        expected = nonzero_randn(shapes[i], torch.float32, seed=seed_for(11, i))
        assert torch.equal(t, expected)
    again = nonzero_inputs(shapes, torch.float32, "cpu", seed=11)
    assert all(torch.equal(a, b) for a, b in zip((x, y, z), again, strict=True))
