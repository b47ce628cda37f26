import pytest

from snippets.lib import partition as p


@pytest.mark.parametrize(
    "tiles,k_iters,workers", [(6, 4, 4), (140, 64, 132), (7, 5, 3), (2, 3, 9)]
)
def test_stream_k_computes_every_iteration_once_and_owns_every_tile(
    tiles, k_iters, workers
):
    shares = p.stream_k_units(tiles, k_iters, workers)
    flat = [piece for share in shares for piece in share]
    cov = p.coverage(flat)
    assert len(cov) == tiles * k_iters and set(cov.values()) == {1}
    owners = p.tile_owners(shares, k_iters)
    assert sorted(owners) == list(range(tiles))
    sizes = [sum(len(ks) for _, ks in share) for share in shares]
    assert max(sizes) - min(sizes) <= 1


def test_split_k_covers_once_with_splits_contributors():
    units = p.split_k_units(5, 7, 3)
    assert set(p.coverage(units).values()) == {1} and len(p.coverage(units)) == 35
    assert set(p.contributors(units).values()) == {3}
    with pytest.raises(ValueError, match="splits"):
        p.split_k_units(5, 7, 8)
    with pytest.raises(ValueError, match="workers"):
        p.stream_k_units(5, 7, 0)


def test_tables():
    assert "| 1 | 1: 2–3, 2: 0–3 | 6 | 1, 2 |" in p.partition_table()
    assert "2 of the tiles are shared by more" in p.partition_summary()
    assert "| 1 | (0, 1) | (1, 0) |" in p.grouped_order()


def test_tile_story():
    assert p.tile_story(1).startswith("Tile 1: worker 0 K iterations 0–1, worker 1")
    assert "Worker 1 computes the last iteration" in p.tile_story(1)
    assert "needs no fix-up" in p.tile_story(0)
