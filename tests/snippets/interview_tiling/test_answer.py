"""Tile intensity, recomputed by hand."""

import math

from snippets.interview_tiling import answer as a


def test_square_tile_intensity_is_half_its_width():
    assert a.tile_intensity(128, 128) == 64
    assert math.isclose(a.tile_intensity(128, 256), 128 * 256 / 384)


def test_the_ridge_tile():
    t = a.square_tile_for_ridge()
    assert t / 2 >= a.ridge() > (t - 1) / 2
    assert t == 413
    assert a.facts()["answer.accumulator"] == "666 KiB"


def test_whole_gemm_intensity():
    assert math.isclose(a.gemm_intensity(8192), 8192 / 3)
