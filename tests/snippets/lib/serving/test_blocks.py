import pytest

from snippets.lib.serving.blocks import BlockAllocator, PoolExhausted, blocks_needed


@pytest.mark.parametrize(
    "tokens, size, want", [(1, 16, 1), (16, 16, 1), (17, 16, 2), (63, 1, 63), (0, 4, 0)]
)
def test_blocks_needed_is_the_ceiling(tokens, size, want):
    assert blocks_needed(tokens, size) == want


def test_allocate_until_dry_then_release():
    pool = BlockAllocator(3)
    got = [pool.allocate(1), pool.allocate(2), pool.allocate(1)]
    assert sorted(got) == [0, 1, 2] and pool.num_free == 0
    with pytest.raises(PoolExhausted):
        pool.allocate(3)
    with pytest.raises(RuntimeError, match="does not own"):
        pool.release(2, [got[0]])
    pool.release(1, [got[0], got[2]])
    pool.release(2, [got[1]])
    assert pool.num_free == 3 and not pool.owner


def test_a_cached_block_is_shared_by_count_and_evicted_least_recent_first():
    pool = BlockAllocator(3)
    a, b = pool.allocate(1), pool.allocate(1)
    pool.register(a, (1, 2))
    pool.register(b, (1, 2, 3, 4))
    assert pool.share((1, 2), seq_id=2) == a  # a second holder
    pool.release(1, [a, b])  # a is still held by 2; b is free but cached
    assert pool.holders == {a: {2}} and pool.cached((1, 2, 3, 4)) == b
    assert pool.share((1, 2, 3, 4), seq_id=3) == b  # back out of the free list
    pool.release(3, [b])
    pool.release(2, [a])
    # Free order now: the never-used block, then b, then a: b is evicted
    # (and forgotten) before a.
    first, second = pool.allocate(4), pool.allocate(4)
    assert second == b and pool.cached((1, 2, 3, 4)) is None
    assert pool.cached((1, 2)) == a and first not in (a, b)
    assert pool.hits == 2
