"""Napkin math for a tiled matrix multiplication C = A @ B.

Shown on docs/kernels/matrix-multiplication/tiled-matmul.md. Everything here
is pencil arithmetic on six integers (M, N, K and the tile BM, BN, BK) plus
the element size in bytes; nothing needs a GPU. `facts()` formats the numbers
the page's sentences state, and the `*_table` functions at the bottom turn
them into the Markdown tables the page inserts.

Run it as a script to print the page's worked example.
"""

import math

from evidence.tables import markdown_table

# The page shows the h200 section with its import, so it runs as copied.
# isort: split
# --8<-- [start:h200]
# NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column
# (nvidia.com/en-us/data-center/h200): "GPU Memory Bandwidth 4.8TB/s" and
# "BFLOAT16 Tensor Core 1,979 TFLOPS", footnoted "With sparsity". The
# figures and their sources are typed once, in kernels/devices.py.
from kernels.devices import H200

H200_HBM_BYTES_PER_S = H200.hbm_bytes_per_s
H200_BF16_SPARSE_FLOP_PER_S = H200.bf16_sparse_flop_per_s
# 2:4 structured sparsity doubles the quoted rate; a dense matmul gets half.
H200_BF16_DENSE_FLOP_PER_S = H200.bf16_dense_flop_per_s
# --8<-- [end:h200]


# --8<-- [start:ideal]
def _check_positive(**sizes: int) -> None:
    """Reject sizes a matmul cannot have, naming the argument."""
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int):
            kind = type(value).__name__
            raise TypeError(f"{name} must be an int, got {kind}")
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")


def ideal_bytes(M: int, N: int, K: int, itemsize: int) -> int:
    """Device-memory bytes if A (M x K) and B (K x N) are each read once
    and C (M x N) is written once: the least any schedule can move."""
    _check_positive(M=M, N=N, K=K, itemsize=itemsize)
    return itemsize * (M * K + K * N + M * N)


def matmul_flops(M: int, N: int, K: int) -> int:
    """Each of the M * N outputs takes K multiplies and K adds."""
    _check_positive(M=M, N=N, K=K)
    return 2 * M * N * K
    # --8<-- [end:ideal]


# --8<-- [start:requests]
def block_count(M: int, N: int, BM: int, BN: int) -> int:
    """Programs in the grid: one per BM x BN tile of C, ragged edges
    included."""
    _check_positive(M=M, N=N, BM=BM, BN=BN)
    return math.ceil(M / BM) * math.ceil(N / BN)


def operand_request_bytes(
    M: int, N: int, K: int, BM: int, BN: int, itemsize: int
) -> int:
    """Bytes of A and B that all blocks together ask memory for.

    A block loads the BM x K strip of A beside its tile and the K x BN
    strip of B above it. Every one of the ceil(N / BN) blocks in a row of
    tiles asks for the same strip of A, so all of A is requested
    ceil(N / BN) times; all of B is requested ceil(M / BM) times. Masked
    lanes at ragged edges request nothing, so edges count what is real.
    """
    _check_positive(M=M, N=N, K=K, BM=BM, BN=BN, itemsize=itemsize)
    a_requests = M * K * math.ceil(N / BN)
    b_requests = K * N * math.ceil(M / BM)
    return itemsize * (a_requests + b_requests)


def requested_bytes(M: int, N: int, K: int, BM: int, BN: int, itemsize: int) -> int:
    """Operand requests plus the store of C (each tile is stored once)."""
    stores = itemsize * M * N
    return operand_request_bytes(M, N, K, BM, BN, itemsize) + stores
    # --8<-- [end:requests]


# --8<-- [start:intensity]
def arithmetic_intensity(flops: int, nbytes: int) -> float:
    """FLOPs done per byte moved."""
    if nbytes <= 0:
        raise ValueError(f"nbytes must be positive, got {nbytes}")
    return flops / nbytes


def ridge_point(peak_flop_per_s: float, bytes_per_s: float) -> float:
    """The intensity where moving the bytes and doing the FLOPs take
    equally long (Williams, Waterman and Patterson's roofline). Below it
    the memory system is the limit; above it the arithmetic is."""
    return peak_flop_per_s / bytes_per_s


def roofline_seconds(
    flops: int,
    nbytes: int,
    peak_flop_per_s: float = H200_BF16_DENSE_FLOP_PER_S,
    bytes_per_s: float = H200_HBM_BYTES_PER_S,
) -> float:
    """Least time the pencil model allows: whichever of the two jobs is
    slower, assuming the other overlaps with it completely."""
    return max(flops / peak_flop_per_s, nbytes / bytes_per_s)
    # --8<-- [end:intensity]


H200_BF16_RIDGE = ridge_point(H200_BF16_DENSE_FLOP_PER_S, H200_HBM_BYTES_PER_S)


def limit_name(intensity: float, ridge: float = H200_BF16_RIDGE) -> str:
    """'compute-bound' at or above the ridge, 'memory-bound' below it."""
    return "compute-bound" if intensity >= ridge else "memory-bound"


# --8<-- [start:crossings]
def smallest_square_over_ridge(itemsize: int, ridge: float) -> int:
    """Smallest n whose n x n x n matmul reaches the ridge on ideal bytes.

    Ideal intensity is 2 n^3 / (3 n^2 itemsize) = 2 n / (3 itemsize), so
    n must be at least 1.5 * itemsize * ridge.
    """
    _check_positive(itemsize=itemsize)
    return math.ceil(1.5 * itemsize * ridge)


def tile_request_intensity(BM: int, BN: int, itemsize: int) -> float:
    """Intensity of the operand requests alone when M and N are whole
    multiples of the tile: each K step brings BM + BN values for
    2 * BM * BN FLOPs, however large the matrices are."""
    _check_positive(BM=BM, BN=BN, itemsize=itemsize)
    return 2 * BM * BN / (itemsize * (BM + BN))


def smallest_square_tile_over_ridge(itemsize: int, ridge: float) -> int:
    """Smallest square tile whose requests alone reach the ridge:
    tile_request_intensity(b, b, s) = b / s, so b >= s * ridge."""
    _check_positive(itemsize=itemsize)
    return math.ceil(itemsize * ridge)
    # --8<-- [end:crossings]


# --8<-- [start:on-chip]
def shared_bytes_per_stage(BM: int, BN: int, BK: int, itemsize: int) -> int:
    """Shared memory one K step stages: a BM x BK slice of A and a
    BK x BN slice of B. A pipeline keeps several stages in flight."""
    _check_positive(BM=BM, BN=BN, BK=BK, itemsize=itemsize)
    return itemsize * BK * (BM + BN)


def accumulator_bytes(BM: int, BN: int) -> int:
    """The float32 BM x BN partial sums a block keeps on chip (in
    registers) for the whole K loop."""
    _check_positive(BM=BM, BN=BN)
    return 4 * BM * BN
    # --8<-- [end:on-chip]


# The page's worked example and exercise. Both are inputs, not results: every
# number the page derives from them is computed below.
WORKED = {"M": 4096, "N": 4096, "K": 4096, "BM": 128, "BN": 128, "BK": 64}
WORKED_ITEMSIZE = 2  # bf16
TABLE_TILES = (
    (64, 64, 32),
    (128, 64, 64),
    (128, 128, 64),
    (128, 256, 64),
    (256, 128, 64),
    (256, 256, 64),
)

# --8<-- [start:exercise]
EXERCISE = {"M": 5000, "N": 3000, "K": 1000, "BM": 128, "BN": 256, "BK": 64}


def exercise_answer(
    M: int, N: int, K: int, BM: int, BN: int, BK: int, itemsize: int = 2
) -> dict:
    """Requests per ideal byte, and the verdict on an H200 in bf16 for
    both byte counts."""
    flops = matmul_flops(M, N, K)
    ideal = ideal_bytes(M, N, K, itemsize)
    requested = requested_bytes(M, N, K, BM, BN, itemsize)
    return {
        "operand_requests_per_ideal_byte": (
            operand_request_bytes(M, N, K, BM, BN, itemsize) / ideal
        ),
        "ideal_intensity": arithmetic_intensity(flops, ideal),
        "ideal_limit": limit_name(arithmetic_intensity(flops, ideal)),
        "request_intensity": arithmetic_intensity(flops, requested),
        "request_limit": limit_name(arithmetic_intensity(flops, requested)),
    }
    # --8<-- [end:exercise]


# ---------------------------------------------------------------------------
# Markdown for the page. Each function returns text the build hook inserts.


def fmt_int(value: int) -> str:
    """12345678 -> '12,345,678'."""
    return f"{value:,}"


def fmt_si(value: float, unit: str) -> str:
    """Three significant figures with an SI prefix: 2.15e9 B -> '2.15 GB'."""
    if value < 0:
        raise ValueError(f"value must not be negative, got {value}")
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}{unit}"
    if value >= 1e3:
        return f"{value / 1e3:.3g} k{unit}"
    return f"{value:.3g} {unit}"


def fmt_seconds(seconds: float) -> str:
    """Seconds in the unit a kernel's time reads best in."""
    if seconds < 0:
        raise ValueError(f"seconds must not be negative, got {seconds}")
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def fmt_bytes(nbytes: int) -> str:
    return f"{fmt_int(nbytes)} bytes ({fmt_si(nbytes, 'B')})"


def worked_shape() -> str:
    """'M = N = K = 4096' (or each size when they differ)."""
    w = WORKED
    if w["M"] == w["N"] == w["K"]:
        return f"M = N = K = {w['M']}"
    return f"M = {w['M']}, N = {w['N']}, K = {w['K']}"


def worked_values() -> dict[str, str]:
    """The worked example's numbers, formatted for prose, by name:
    flops, ideal, blocks, a_repeats, b_repeats, operand_requests, stores,
    requested, ratio, operand_ratio, ideal_intensity, request_intensity,
    ridge, ideal_time_memory, ideal_time_compute, request_time_memory,
    request_bandwidth_at_peak, request_ceiling, shared_per_stage,
    accumulator, k_steps.
    """
    w, s = WORKED, WORKED_ITEMSIZE
    M, N, K, BM, BN, BK = (w[k] for k in ("M", "N", "K", "BM", "BN", "BK"))
    flops = matmul_flops(M, N, K)
    ideal = ideal_bytes(M, N, K, s)
    requested = requested_bytes(M, N, K, BM, BN, s)
    operand = operand_request_bytes(M, N, K, BM, BN, s)
    peak, bw = H200_BF16_DENSE_FLOP_PER_S, H200_HBM_BYTES_PER_S
    values = {
        "flops": f"{fmt_int(flops)} FLOPs ({fmt_si(flops, 'FLOP')})",
        "ideal": fmt_bytes(ideal),
        "blocks": fmt_int(block_count(M, N, BM, BN)),
        "a_repeats": fmt_int(math.ceil(N / BN)),
        "b_repeats": fmt_int(math.ceil(M / BM)),
        "k_steps": fmt_int(math.ceil(K / BK)),
        "operand_requests": fmt_bytes(operand),
        "stores": fmt_bytes(s * M * N),
        "requested": fmt_bytes(requested),
        "ratio": f"{requested / ideal:.1f}",
        "operand_ratio": f"{operand / ideal:.1f}",
        "ideal_intensity": f"{arithmetic_intensity(flops, ideal):.0f}",
        "request_intensity": f"{arithmetic_intensity(flops, requested):.0f}",
        "ridge": f"{H200_BF16_RIDGE:.0f}",
        "ideal_time_memory": fmt_seconds(ideal / bw),
        "ideal_time_compute": fmt_seconds(flops / peak),
        "request_time_memory": fmt_seconds(requested / bw),
        "request_bandwidth_at_peak": fmt_si(requested / (flops / peak), "B/s"),
        "request_ceiling": fmt_si(flops / roofline_seconds(flops, requested), "FLOP/s"),
        "shared_per_stage": (f"{shared_bytes_per_stage(BM, BN, BK, s) // 1024} KiB"),
        "accumulator": f"{accumulator_bytes(BM, BN) // 1024} KiB",
    }
    return values


def worked_limit(which: str) -> str:
    """The roofline verdict for the worked example on 'ideal' or
    'requested' bytes."""
    w, s = WORKED, WORKED_ITEMSIZE
    M, N, K, BM, BN = (w[k] for k in ("M", "N", "K", "BM", "BN"))
    flops = matmul_flops(M, N, K)
    if which == "ideal":
        nbytes = ideal_bytes(M, N, K, s)
    elif which == "requested":
        nbytes = requested_bytes(M, N, K, BM, BN, s)
    else:
        raise ValueError(f"which must be 'ideal' or 'requested', got {which!r}")
    return limit_name(arithmetic_intensity(flops, nbytes))


def h200_values() -> dict[str, str]:
    """The datasheet constants, formatted: 'bandwidth', 'sparse', 'dense',
    'ridge', and 'datasheet' (the two figures as the datasheet words them)."""
    return {
        "bandwidth": fmt_si(H200_HBM_BYTES_PER_S, "B/s"),
        "sparse": f"{H200_BF16_SPARSE_FLOP_PER_S / 1e12:,.0f} TFLOP/s",
        "dense": f"{H200_BF16_DENSE_FLOP_PER_S / 1e12:,.1f} TFLOP/s",
        "ridge": f"{H200_BF16_RIDGE:.0f} FLOP/byte",
        "datasheet": (
            f"GPU memory bandwidth {H200_HBM_BYTES_PER_S / 1e12:g} TB/s; "
            f"BFLOAT16 Tensor Core "
            f"{H200_BF16_SPARSE_FLOP_PER_S / 1e12:,.0f} TFLOPS"
        ),
    }


def facts() -> dict[str, str]:
    """Every value the page states, by name: `worked.<name>` for the worked
    example, `h200.<name>` for the datasheet constants."""
    return {
        **{f"worked.{k}": v for k, v in worked_values().items()},
        **{f"h200.{k}": v for k, v in h200_values().items()},
        "worked.shape": worked_shape(),
        "worked.itemsize": f"{WORKED_ITEMSIZE}",
        "worked.tile": f"{WORKED['BM']} × {WORKED['BN']} × {WORKED['BK']}",
        **{f"crossing.{k}": crossing(k) for k in CROSSINGS},
        **tile_range_facts(),
        **exercise_facts(),
    }


CROSSINGS = ("square", "tile", "tile-accumulator")


def crossing(kind: str, itemsize: int = 2) -> str:
    """'square' -> the smallest n x n x n over the ridge on ideal bytes;
    'tile' -> the smallest square tile whose requests reach it;
    'tile-accumulator' -> that tile's float32 accumulator."""
    if kind == "square":
        return fmt_int(smallest_square_over_ridge(itemsize, H200_BF16_RIDGE))
    b = smallest_square_tile_over_ridge(itemsize, H200_BF16_RIDGE)
    if kind == "tile":
        return f"{b} × {b}"
    if kind == "tile-accumulator":
        return f"{accumulator_bytes(b, b) / 1024:.0f} KiB"
    raise ValueError(
        f"kind must be 'square', 'tile' or 'tile-accumulator', got {kind!r}"
    )


def tile_table(
    M: int = WORKED["M"],
    N: int = WORKED["N"],
    K: int = WORKED["K"],
    itemsize: int = WORKED_ITEMSIZE,
) -> str:
    """A Markdown table: what each tile size in TABLE_TILES does to the
    requests and to the on-chip storage for one problem size."""
    ideal = ideal_bytes(M, N, K, itemsize)
    flops = matmul_flops(M, N, K)
    header = [
        "tile BM × BN × BK",
        "blocks",
        "operand requests",
        "requested ÷ ideal",
        "intensity of requests (FLOP/byte)",
        "if every request reached HBM",
        "shared memory per stage",
        "fp32 accumulator",
    ]
    rows = []
    for BM, BN, BK in TABLE_TILES:
        requested = requested_bytes(M, N, K, BM, BN, itemsize)
        intensity = arithmetic_intensity(flops, requested)
        operand = operand_request_bytes(M, N, K, BM, BN, itemsize)
        smem = shared_bytes_per_stage(BM, BN, BK, itemsize)
        rows.append(
            (
                f"{BM} × {BN} × {BK}",
                fmt_int(block_count(M, N, BM, BN)),
                fmt_si(operand, "B"),
                f"{requested / ideal:.1f}",
                f"{intensity:.0f}",
                limit_name(intensity),
                f"{smem // 1024} KiB",
                f"{accumulator_bytes(BM, BN) // 1024} KiB",
            )
        )
    return markdown_table(header, rows, "lrrrrlrr")


def tile_range_facts(M: int = WORKED["M"], N: int = WORKED["N"]) -> dict:
    """The smallest and largest tiles of TABLE_TILES and how much they
    differ in operand requests for the worked sizes."""
    by_area = sorted(TABLE_TILES, key=lambda tile: tile[0] * tile[1])
    (sm, sn, _), (lm, ln, _) = by_area[0], by_area[-1]
    K, s = WORKED["K"], WORKED_ITEMSIZE
    small = operand_request_bytes(M, N, K, sm, sn, s)
    large = operand_request_bytes(M, N, K, lm, ln, s)
    return {
        "tile-range.small": f"{sm} × {sn}",
        "tile-range.large": f"{lm} × {ln}",
        "tile-range.ratio": f"{small / large:g}",
    }


def exercise_facts() -> dict[str, str]:
    """The exercise's sizes and its worked answer, formatted, by name."""
    e, s = EXERCISE, 2
    M, N, K, BM, BN, BK = (e[k] for k in ("M", "N", "K", "BM", "BN", "BK"))
    answer = exercise_answer(M, N, K, BM, BN, BK, itemsize=s)
    sizes = {f"exercise.{k}": f"{v}" for k, v in e.items()}
    return {
        **sizes,
        "exercise.grid-m": fmt_int(math.ceil(M / BM)),
        "exercise.grid-n": fmt_int(math.ceil(N / BN)),
        "exercise.blocks": fmt_int(block_count(M, N, BM, BN)),
        "exercise.requests": fmt_bytes(operand_request_bytes(M, N, K, BM, BN, s)),
        "exercise.ideal": fmt_bytes(ideal_bytes(M, N, K, s)),
        "exercise.ratio": f"{answer['operand_requests_per_ideal_byte']:.2f}",
        "exercise.ideal-intensity": f"{answer['ideal_intensity']:.0f}",
        "exercise.ridge": f"{H200_BF16_RIDGE:.0f}",
        "exercise.ideal-limit": answer["ideal_limit"],
        "exercise.request-intensity": f"{answer['request_intensity']:.0f}",
        "exercise.request-limit": answer["request_limit"],
    }


if __name__ == "__main__":
    print(
        f"{worked_shape()} in bf16 ({WORKED_ITEMSIZE} bytes an element), "
        f"tiles BM × BN × BK = {WORKED['BM']} × {WORKED['BN']} × {WORKED['BK']}"
    )
    for key in (
        "flops",
        "ideal",
        "blocks",
        "operand_requests",
        "requested",
        "ratio",
        "ideal_intensity",
        "request_intensity",
        "ridge",
    ):
        print(f"{key:>18}: {worked_values()[key]}")
    print(f"{'on ideal bytes':>18}: {worked_limit('ideal')}")
    print(f"{'on requests':>18}: {worked_limit('requested')}")
