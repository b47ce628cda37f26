"""The sector model (snippets/lib/sectors.py) against a walk of every warp."""

import pytest

from kernels.transpose import versions as kernel
from snippets.lib import sectors as s


def test_warp_sectors_by_hand():
    assert s.warp_sectors(s.row_access(4), 4) == 4  # 128 bytes
    assert s.warp_sectors(s.row_access(2), 2) == 2
    assert s.warp_sectors(s.column_access(4096, 4), 4) == 32
    assert s.warp_sectors(s.column_access(4, 4), 4) == 16  # rows of 16 bytes
    assert s.warp_sectors([30], 4) == 2  # straddles a sector boundary


def brute_force(M, N, itemsize, tiled):
    """Walk every warp of the copy, element by element."""
    read = write = 0
    for r in range(M):
        for c0 in range(0, N, 32):
            cols = range(c0, c0 + 32)
            read += s.warp_sectors([(r * N + c) * itemsize for c in cols], itemsize)
            if not tiled:  # out[c, r]
                write += s.warp_sectors(
                    [(c * M + r) * itemsize for c in cols], itemsize
                )
    if tiled:  # warps write 32 consecutive elements of out's rows
        for r in range(N):
            for c0 in range(0, M, 32):
                addrs = [(r * M + c) * itemsize for c in range(c0, c0 + 32)]
                write += s.warp_sectors(addrs, itemsize)
    return read, write


@pytest.mark.parametrize("tiled", [False, True], ids=["naive", "tiled"])
def test_formula_matches_a_walk(tiled):
    got = s.transpose_sectors(64, 96, 4, tiled)
    assert (got["read"], got["write"]) == brute_force(64, 96, 4, tiled)
    assert got["useful_bytes"] == kernel.bytes_moved(64, 96, 4)


def test_coalescing_changes_transactions_not_useful_bytes():
    naive = s.transpose_sectors(4096, 4096, 4, False)
    tiled = s.transpose_sectors(4096, 4096, 4, True)
    assert naive["useful_bytes"] == tiled["useful_bytes"]
    assert naive["write"] == 8 * tiled["write"]
    with pytest.raises(ValueError, match="multiples"):
        s.transpose_sectors(33, 32, 4, True)
