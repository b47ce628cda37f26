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
