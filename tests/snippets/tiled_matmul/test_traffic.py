"""The napkin math of the tiled-matmul lesson, checked against brute force."""

import math

import pytest

from snippets.tiled_matmul import traffic as t


def brute_force_requests(M, N, K, BM, BN, itemsize):
    """Walk every block and count the unmasked A and B elements it loads."""
    total = 0
    for row0 in range(0, M, BM):
        rows = min(BM, M - row0)
        for col0 in range(0, N, BN):
            cols = min(BN, N - col0)
            total += rows * K + K * cols
    return total * itemsize


SHAPES = [
    (1, 1, 1, 16, 16),
    (4096, 4096, 4096, 128, 128),
    (257, 255, 97, 128, 64),
    (5000, 3000, 1000, 128, 256),
    (127, 129, 1, 64, 32),
]


@pytest.mark.parametrize("M,N,K,BM,BN", SHAPES, ids=lambda v: str(v))
def test_operand_requests_match_a_walk_over_blocks(M, N, K, BM, BN):
    assert t.operand_request_bytes(M, N, K, BM, BN, 2) == brute_force_requests(
        M, N, K, BM, BN, 2
    )


def test_one_block_requests_exactly_the_ideal_operand_bytes():
    # A tile as large as C: each operand is requested once, nothing repeats.
    M, N, K = 100, 60, 33
    ideal_operands = t.ideal_bytes(M, N, K, 4) - 4 * M * N
    assert t.operand_request_bytes(M, N, K, 128, 64, 4) == ideal_operands
    assert t.requested_bytes(M, N, K, 128, 64, 4) == t.ideal_bytes(M, N, K, 4)


def test_ideal_bytes_and_flops_agree_with_the_kernel_module():
    matmul = pytest.importorskip("kernels.matmul.versions")
    for M, N, K, _, _ in SHAPES:
        assert t.ideal_bytes(M, N, K, 2) == matmul.bytes_moved(M, N, K, 2)
        assert t.matmul_flops(M, N, K) == matmul.flops(M, N, K)


def test_worked_example_numbers():
    # 4096^3 bf16 with 128 x 128 tiles: each operand is requested 32 times.
    M = N = K = 4096
    assert t.ideal_bytes(M, N, K, 2) == 3 * 4096 * 4096 * 2
    assert t.block_count(M, N, 128, 128) == 32 * 32
    assert t.operand_request_bytes(M, N, K, 128, 128, 2) == 2 * 32 * M * K * 2
    assert t.facts()["worked.blocks"] == "1,024"
    assert t.facts()["worked.ideal"].startswith("100,663,296 bytes")
    assert t.facts()["worked.ridge"] == f"{1979e12 / 2 / 4.8e12:.0f}"
    assert t.worked_limit("ideal") == "compute-bound"
    assert t.worked_limit("requested") == "memory-bound"


def test_datasheet_constants_and_ridge():
    assert t.H200_HBM_BYTES_PER_S == 4.8e12
    assert t.H200_BF16_DENSE_FLOP_PER_S == pytest.approx(989.5e12)
    assert t.H200_BF16_RIDGE == pytest.approx(989.5e12 / 4.8e12)
    assert t.facts()["h200.dense"] == "989.5 TFLOP/s"
    assert t.facts()["h200.sparse"] == "1,979 TFLOP/s"
    assert t.facts()["h200.datasheet"] == (
        "GPU memory bandwidth 4.8 TB/s; BFLOAT16 Tensor Core 1,979 TFLOPS"
    )
    assert t.facts()["h200.bandwidth"] == "4.8 TB/s"


def test_roofline_takes_the_slower_of_the_two_jobs():
    peak, bw = 100.0, 10.0
    assert t.roofline_seconds(1000, 10, peak, bw) == 10.0  # compute
    assert t.roofline_seconds(10, 1000, peak, bw) == 100.0  # memory
    assert t.ridge_point(peak, bw) == 10.0
    assert t.limit_name(10.0, ridge=10.0) == "compute-bound"
    assert t.limit_name(9.99, ridge=10.0) == "memory-bound"


@pytest.mark.parametrize("itemsize", [1, 2, 4])
def test_square_crossing_is_the_first_size_over_the_ridge(itemsize):
    ridge = t.H200_BF16_RIDGE
    n = t.smallest_square_over_ridge(itemsize, ridge)

    def intensity(size):
        flops = t.matmul_flops(size, size, size)
        return t.arithmetic_intensity(flops, t.ideal_bytes(size, size, size, itemsize))

    assert intensity(n) >= ridge > intensity(n - 1)


@pytest.mark.parametrize("itemsize", [1, 2, 4])
def test_square_tile_crossing_is_the_first_tile_over_the_ridge(itemsize):
    ridge = t.H200_BF16_RIDGE
    b = t.smallest_square_tile_over_ridge(itemsize, ridge)
    assert t.tile_request_intensity(b, b, itemsize) >= ridge
    assert t.tile_request_intensity(b - 1, b - 1, itemsize) < ridge


def test_tile_intensity_is_the_limit_of_large_problems():
    BM, BN, s = 128, 256, 2
    M = N = 128 * 256 * 8
    K = 64
    flops = t.matmul_flops(M, N, K)
    operands = t.operand_request_bytes(M, N, K, BM, BN, s)
    assert flops / operands == pytest.approx(t.tile_request_intensity(BM, BN, s))


def test_bigger_tiles_never_request_more():
    M = N = K = 4096
    by_area = sorted(t.TABLE_TILES, key=lambda tile: tile[0] * tile[1])
    requests = [t.operand_request_bytes(M, N, K, bm, bn, 2) for bm, bn, _ in by_area]
    assert requests == sorted(requests, reverse=True)


def test_on_chip_sizes():
    assert t.shared_bytes_per_stage(128, 256, 64, 2) == 48 * 1024
    assert t.accumulator_bytes(128, 128) == 64 * 1024


def test_tile_range_facts():
    assert t.tile_range_facts() == {
        "tile-range.small": "64 × 64",
        "tile-range.large": "256 × 256",
        "tile-range.ratio": "4",
    }


def test_tile_table_has_a_row_per_tile_and_matching_numbers():
    table = t.tile_table().splitlines()
    assert len(table) == 2 + len(t.TABLE_TILES)
    row = next(line for line in table if line.startswith("| 128 × 128 × 64 |"))
    assert "| 1,024 |" in row and "| 2.15 GB |" in row and "| 32 KiB |" in row


def test_exercise_answer():
    e = t.EXERCISE
    answer = t.exercise_answer(e["M"], e["N"], e["K"], e["BM"], e["BN"], e["BK"])
    a_times, b_times = math.ceil(3000 / 256), math.ceil(5000 / 128)  # 12, 40
    operands = 2 * (5000 * 1000 * a_times + 1000 * 3000 * b_times)
    ideal = 2 * (5000 * 1000 + 1000 * 3000 + 5000 * 3000)
    assert e == {"M": 5000, "N": 3000, "K": 1000, "BM": 128, "BN": 256, "BK": 64}
    assert answer["operand_requests_per_ideal_byte"] == operands / ideal
    assert answer["ideal_limit"] == "compute-bound"
    assert answer["request_limit"] == "memory-bound"
    facts = t.facts()
    assert facts["exercise.ratio"] == f"{operands / ideal:.2f}"
    # The page's reading ("only if L2 serves enough of the repeated
    # requests") holds for this pair of verdicts only.
    assert (facts["exercise.ideal-limit"], facts["exercise.request-limit"]) == (
        "compute-bound",
        "memory-bound",
    )


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: t.ideal_bytes(0, 1, 1, 2), ValueError, "M must be at least 1"),
        (lambda: t.ideal_bytes(1, 1, 1, 2.0), TypeError, "itemsize must be an int"),
        (lambda: t.block_count(4, 4, 0, 4), ValueError, "BM"),
        (lambda: t.operand_request_bytes(4, 4, 4, 4, True, 2), TypeError, "BN"),
        (lambda: t.arithmetic_intensity(1, 0), ValueError, "nbytes"),
        (lambda: t.facts()["worked.speed"], KeyError, "worked.speed"),
        (lambda: t.worked_limit("hbm"), ValueError, "which"),
        (lambda: t.facts()["h200.l2"], KeyError, "h200.l2"),
        (lambda: t.crossing("cube"), ValueError, "kind"),
        (lambda: t.fmt_si(-1, "B"), ValueError, "negative"),
    ],
    ids=[
        "zero-M",
        "float-itemsize",
        "zero-tile",
        "bool-tile",
        "no-bytes",
        "unknown-value",
        "unknown-limit",
        "unknown-constant",
        "unknown-crossing",
        "negative-size",
    ],
)
def test_bad_input_names_what_was_wrong(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_formatting():
    assert t.fmt_si(2.147e9, "B") == "2.15 GB"
    assert t.fmt_si(999, "B") == "999 B"
    assert t.fmt_seconds(2.1e-5) == "21 µs"
    assert t.fmt_seconds(0.25) == "250 ms"


def test_every_worked_value_renders():
    names = t.worked_values.__doc__.split("by name:")[1].replace("\n", " ")
    names = [n.strip(" .") for n in names.split(",")]
    assert sorted(names) == sorted(t.worked_values())
    for name in names:
        assert t.facts()[f"worked.{name}"]


def test_the_pages_comparisons_hold_for_the_worked_example():
    # The prose around the worked numbers compares them in words; these are
    # the comparisons it makes, so a change of WORKED cannot make it false.
    from snippets.lib.matmul_artifacts import SM90_REGISTERS_PER_SM

    w, s = t.WORKED, t.WORKED_ITEMSIZE
    M, N, K, BM, BN = (w[k] for k in ("M", "N", "K", "BM", "BN"))
    flops = t.matmul_flops(M, N, K)
    compute_s = flops / t.H200_BF16_DENSE_FLOP_PER_S
    requested = t.requested_bytes(M, N, K, BM, BN, s)
    ideal = t.ideal_bytes(M, N, K, s)
    bw = t.H200_HBM_BYTES_PER_S
    # "moving the requested bytes would take ... while the arithmetic takes"
    assert requested / bw > compute_s
    # "far more than HBM can deliver"
    assert requested / compute_s > 2 * bw
    # "needs only ... of HBM time"
    assert ideal / bw < compute_s
    # "more than the whole register file of a Hopper SM"
    b = t.smallest_square_tile_over_ridge(2, t.H200_BF16_RIDGE)
    assert t.accumulator_bytes(b, b) > 4 * SM90_REGISTERS_PER_SM
    # "no tile that fits on chip escapes it": every row of the table
    for tile_m, tile_n, _ in t.TABLE_TILES:
        intensity = flops / t.requested_bytes(M, N, K, tile_m, tile_n, s)
        assert t.limit_name(intensity) == "memory-bound"
