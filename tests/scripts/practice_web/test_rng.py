"""torch's CPU generator re-done: the same values for the same seed."""

from __future__ import annotations

import pytest


def test_the_generator_gives_torchs_values():
    torch = pytest.importorskip("torch")
    from scripts.practice_web.rng import Generator

    for seed, sizes in ((0, (300,)), (5, (7, 7)), (3, (16, 3, 40, 1))):
        theirs, ours = torch.Generator().manual_seed(seed), Generator(seed)
        for n in sizes:
            expected = torch.randn((n,), generator=theirs, dtype=torch.float64)
            assert ours.randn(n) == expected.tolist(), (seed, n)
    theirs, ours = torch.Generator().manual_seed(9), Generator(9)
    expected = torch.randint(0, 127, (50,), generator=theirs, dtype=torch.uint8)
    assert ours.randint(127, 50) == expected.tolist()
