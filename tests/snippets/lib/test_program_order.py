"""The pencil model of program order (snippets/lib/program_order.py):
which tile each program computes, the strips the first wave needs, and that
the Python replica matches the kernel's own `tiles` section."""

import numpy as np
import pytest

from snippets.lib import program_order


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: program_order.program_tile(6, 2, 3, 1), "pid"),
        (lambda: program_order.program_tile(0, 2, 3, 0), "group_m"),
    ],
    ids=["pid-past-grid", "group-zero"],
)
def test_bad_input_names_what_was_wrong(call, words):
    with pytest.raises(ValueError, match=words):
        call()


@pytest.mark.parametrize("tiles_m,tiles_n,group_m", [(1, 1, 8), (5, 3, 2), (9, 4, 8)])
def test_program_order_visits_every_tile_once(tiles_m, tiles_n, group_m):
    tiles = [
        program_order.program_tile(p, tiles_m, tiles_n, group_m)
        for p in range(tiles_m * tiles_n)
    ]
    assert sorted(tiles) == [(m, n) for m in range(tiles_m) for n in range(tiles_n)]


def test_group_of_one_is_row_order():
    tiles = [program_order.program_tile(p, 3, 4, 1) for p in range(12)]
    assert tiles == [(m, n) for m in range(3) for n in range(4)]


def test_bands_walk_down_before_right():
    # Bands of two rows: (0,0), (1,0), (0,1), (1,1), ... then the short band.
    tiles = [program_order.program_tile(p, 3, 2, 2) for p in range(6)]
    assert tiles == [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (2, 1)]


def test_first_wave_strips_at_8192():
    # 64 x 32 tiles of 128 x 256; a wave of 132 programs.
    assert program_order.first_wave_strips(8192, 8192, 128, 256, 1, 132) == (5, 32)
    assert program_order.first_wave_strips(8192, 8192, 128, 256, 8, 132) == (8, 17)


def test_wave_reading_follows_the_numbers():
    text = program_order.wave_reading(128, 256, 8)
    assert "At 8192³ bands of 8 cut" in text
    assert "At 4096³ a row of tiles is only 16 tiles long" in text
    # A grouping that changes nothing is called so.
    assert "same" in program_order.wave_reading(128, 256, 1)


def kernel_section(name: str) -> str:
    """The text of one snippet section of kernels/matmul/versions.py, dedented."""
    import textwrap
    from pathlib import Path

    source = (
        Path(__file__).resolve().parents[3] / "kernels" / "matmul" / "versions.py"
    ).read_text()
    start = source.index(f"# --8<-- [start:{name}]")
    end = source.index(f"# --8<-- [end:{name}]")
    body = source[source.index("\n", start) + 1 : source.rindex("\n", 0, end) + 1]
    return textwrap.dedent(body)


class _StubTl:
    """Just enough of triton.language to run the tiles section in Python."""

    def __init__(self, pid):
        self.pid = pid

    def program_id(self, axis):
        return self.pid

    @staticmethod
    def cdiv(a, b):
        return -(-a // b)

    @staticmethod
    def arange(start, stop):
        return np.arange(start, stop)


@pytest.mark.parametrize("tiles_m,tiles_n,group_m", [(6, 3, 4), (5, 7, 8), (9, 2, 1)])
def test_python_replica_matches_the_kernels_tiles_section(tiles_m, tiles_n, group_m):
    # Run the kernel's own `tiles` section with a stub `tl`, program by
    # program, and compare its (tile_m, tile_n) with program_order's.
    code = kernel_section("tiles")
    BM = BN = 16
    for pid in range(tiles_m * tiles_n):
        scope = {
            "tl": _StubTl(pid),
            "M": tiles_m * BM - 3,  # ragged: the last tile row is partial
            "N": tiles_n * BN,
            "BLOCK_M": BM,
            "BLOCK_N": BN,
            "BLOCK_K": 16,
            "GROUP_M": group_m,
        }
        exec(code, scope)
        expected = program_order.program_tile(pid, tiles_m, tiles_n, group_m)
        assert (scope["tile_m"], scope["tile_n"]) == expected, pid
