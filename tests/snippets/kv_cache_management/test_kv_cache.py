import pytest

from snippets.kv_cache_management import kv_cache


def test_sequences_that_fit():
    assert kv_cache.sequences_that_fit(100, 20, 2, 10) == 4
    with pytest.raises(ValueError, match="weight_bytes"):
        kv_cache.sequences_that_fit(10, 10, 1, 1)


def test_waste_by_hand():
    assert kv_cache.reserved_waste([10, 30], 40) == pytest.approx(0.5)
    # 10 -> 2 blocks of 8 (16 slots), 30 -> 4 blocks (32): 40 of 48 used.
    assert kv_cache.paged_waste([10, 30], 8) == pytest.approx(1 - 40 / 48)
    assert kv_cache.paged_waste([10, 30], 1) == 0


def test_prefix_sharing_by_hand():
    # prefix 20, own 5, blocks of 8: 25 tokens -> 4 blocks each; 2 full
    # prefix blocks are shared, 2 per request stay private.
    assert kv_cache.prefix_blocks(3, 20, 5, 8) == {"without": 12, "with": 8}


def test_texts():
    assert kv_cache.text("tiny_per_token") == "2,048 bytes"  # 2 x 2 x 4 x 16 x 8
    assert kv_cache.text("big_per_token") == "128 KiB"
    assert kv_cache.text("run_paged_1") == "0%"
    assert "blocks without sharing" in kv_cache.exercise_text("ex2_a")
    assert kv_cache.waste_table().count("| blocks of") == 4
    with pytest.raises(ValueError, match="what"):
        kv_cache.text("nope")


def test_pool_picture_draws_each_block():
    fig = kv_cache.pool_picture((9, 3), 4, 6)
    (ax,) = fig.axes
    # 6 outlines, plus a fill for each of the 3 + 1 owned blocks.
    assert len(ax.patches) == 6 + 4


def test_reserving_each_requests_own_maximum_wastes_nothing_without_eos():
    from snippets.kv_cache_management import kv_cache

    assert kv_cache.reserved_own_waste([10, 20], [10, 20]) == 0
    assert kv_cache.reserved_own_waste([5, 20], [10, 20]) == 1 - 25 / 30
    assert kv_cache.text("run_reserved_own") == "0%"
