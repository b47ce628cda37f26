"""FP8 formats, scaling and accumulation, modelled on the CPU with numpy.

Shown on docs/kernels/matrix-multiplication/fp8-on-tensor-cores.md.
Evidence kind: CPU model. The two formats are built from their bit layouts
(the OCP 8-bit floating point specification); rounding is to nearest, ties
to even, with saturation, and the test checks it bit for bit against
torch's ``float8_e4m3fn`` and ``float8_e5m2`` casts. The errors are rounding
errors of this model on random inputs, not a device's arithmetic and not
speed. The roofline part reads the published rates in kernels/devices.py.
"""

import functools
from dataclasses import dataclass

import numpy as np

from evidence.tables import markdown_table
from kernels.devices import H200


# --8<-- [start:formats]
@dataclass(frozen=True)
class Fp8Format:
    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    #: e4m3 gives up infinities so that only S.1111.111 is NaN; e5m2 keeps
    #: IEEE's rule (exponent all ones is infinity or NaN).
    ieee_specials: bool

    def positive_values(self) -> list[float]:
        """Every finite value >= 0, in code order (which is value order)."""
        values = []
        for exponent in range(2**self.exponent_bits):
            for mantissa in range(2**self.mantissa_bits):
                top = exponent == 2**self.exponent_bits - 1
                if top and (
                    self.ieee_specials or mantissa == 2**self.mantissa_bits - 1
                ):
                    continue  # infinity or NaN
                fraction = mantissa / 2**self.mantissa_bits
                if exponent == 0:  # subnormal: no implicit leading one
                    values.append(fraction * 2.0 ** (1 - self.bias))
                else:
                    values.append((1 + fraction) * 2.0 ** (exponent - self.bias))
        return values


E4M3 = Fp8Format("e4m3", exponent_bits=4, mantissa_bits=3, bias=7, ieee_specials=False)
E5M2 = Fp8Format("e5m2", exponent_bits=5, mantissa_bits=2, bias=15, ieee_specials=True)
# --8<-- [end:formats]
FORMATS = (E4M3, E5M2)


def format_summary(fmt: Fp8Format) -> dict[str, float]:
    values = fmt.positive_values()
    smallest_normal = 2.0 ** (1 - fmt.bias)
    return {
        "max": values[-1],
        "smallest_normal": smallest_normal,
        "smallest_subnormal": values[1],
        # the gap above 1.0, relative: 2^-mantissa_bits; half of it bounds
        # the relative rounding error of a normal value
        "relative_step": 2.0**-fmt.mantissa_bits,
        "normal_range_binades": np.log2(values[-1] / smallest_normal),
        "finite_values": 2 * len(values) - 1,  # +0 and -0 share a value
    }


def formats_table() -> str:
    rows = []
    for fmt in FORMATS:
        s = format_summary(fmt)
        rows.append(
            [
                fmt.name,
                f"{fmt.exponent_bits} / {fmt.mantissa_bits}",
                fmt.bias,
                f"{s['max']:g}",
                f"2^{int(np.log2(s['smallest_normal']))}",
                f"2^{int(np.log2(s['smallest_subnormal']))}",
                f"{s['relative_step'] / 2:.2%}",
                "no (saturate)" if not fmt.ieee_specials else "yes",
            ]
        )
    header = [
        "format",
        "exponent / mantissa bits",
        "bias",
        "largest finite",
        "smallest normal",
        "smallest subnormal",
        "worst relative rounding (normal)",
        "infinities",
    ]
    return markdown_table(header, rows) + "\n"


# --8<-- [start:quantise]
def round_to_format(x: np.ndarray, fmt: Fp8Format) -> np.ndarray:
    """Round to the nearest value of `fmt`, ties to the even code, and
    saturate at the largest finite value (what scaled FP8 casts do)."""
    grid = np.array(fmt.positive_values())
    magnitude = np.minimum(np.abs(np.asarray(x, dtype=np.float64)), grid[-1])
    hi = np.clip(np.searchsorted(grid, magnitude), 1, len(grid) - 1)
    lo = hi - 1
    below, above = magnitude - grid[lo], grid[hi] - magnitude
    # consecutive codes alternate parity, so "even code" is "even index"
    take_hi = (above < below) | ((above == below) & (hi % 2 == 0))
    return np.sign(x) * np.where(take_hi, grid[hi], grid[lo])


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 (round to nearest even on the top 16 bits)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)
    # --8<-- [end:quantise]


# --8<-- [start:scaling]
def scales(x: np.ndarray, fmt: Fp8Format, block: int | None) -> np.ndarray:
    """One scale per `block` consecutive values along each row (K is the
    last axis); block=None is one scale for the whole tensor, block=0 no
    scaling at all. The scale maps the block's largest magnitude onto the
    format's largest value."""
    top = fmt.positive_values()[-1]
    rows, k = x.shape
    if block == 0:
        return np.ones((rows, 1))
    if block is None:
        amax = np.full((rows, 1), np.abs(x).max())
    else:
        if k % block:
            raise ValueError(f"block {block} must divide K={k}")
        amax = np.abs(x).reshape(rows, k // block, block).max(axis=2)
    return np.maximum(amax, np.finfo(np.float32).tiny) / top


def quantise(x: np.ndarray, fmt: Fp8Format, block: int | None) -> np.ndarray:
    """Scale, round to FP8, and scale back: the values the tensor core
    multiplies, times their scales, as float32."""
    s = scales(x, fmt, block)
    per_value = np.repeat(s, x.shape[1] // s.shape[1], axis=1)
    return (round_to_format(x / per_value, fmt) * per_value).astype(np.float32)


def fp8_matmul(a: np.ndarray, b: np.ndarray, fmt: Fp8Format, block) -> np.ndarray:
    """A (M x K) times B (K x N): both quantised along K, multiplied and
    accumulated in float32."""
    return quantise(a, fmt, block) @ quantise(b.T, fmt, block).T
    # --8<-- [end:scaling]


# --8<-- [start:inputs]
def random_pair(m: int, n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    return a, b


ROW_DECADES = 3  # token rows span this many powers of ten
OUTLIER_FACTOR = 1000.0  # outlier channels are this much larger
OUTLIER_EVERY = 128  # one outlier channel per this many


def outlier_pair(m: int, n: int, k: int, seed: int = 0):
    """Activations as large models have them: rows (tokens) of very
    different sizes, and a few channels much larger than the rest."""
    a, b = random_pair(m, n, k, seed)
    rng = np.random.default_rng(seed + 1)
    a *= 10.0 ** rng.uniform(-ROW_DECADES, 0, size=(m, 1))
    channels = rng.choice(k, size=max(1, k // OUTLIER_EVERY), replace=False)
    a[:, channels] *= OUTLIER_FACTOR
    return a.astype(np.float32), b
    # --8<-- [end:inputs]


# --8<-- [start:error]
def worst_row_error(result: np.ndarray, truth: np.ndarray) -> float:
    """The largest relative error of any output row: one token's output can
    be ruined while the whole matrix's error, dominated by large rows, looks
    fine."""
    diff = np.linalg.norm(result - truth, axis=1)
    return float((diff / np.linalg.norm(truth, axis=1)).max())
    # --8<-- [end:error]


MX_BLOCK = 32  # the OCP microscaling formats' block: 32 values, one scale
SHAPE = (32, 32, 512)  # M, N, K of the error table
BLOCKS = (None, 512, 256, 128, 64, 32)  # None: per tensor; K: per row
SCHEMES = (
    ("unscaled", 0),
    ("per tensor", None),
    ("per row", SHAPE[2]),
    ("block of 128", 128),
    (f"block of {MX_BLOCK}", MX_BLOCK),
)


@functools.lru_cache(maxsize=4)
def scheme_errors(shape=SHAPE, seed: int = 0) -> dict:
    """(reference or scheme, format) -> {inputs: worst-row error}."""
    m, n, k = shape
    out = {}
    for kind, maker in (("random", random_pair), ("outliers", outlier_pair)):
        a, b = maker(m, n, k, seed)
        truth = a.astype(np.float64) @ b.astype(np.float64)
        out.setdefault(("float32 inputs", ""), {})[kind] = worst_row_error(a @ b, truth)
        bf16 = round_to_bf16(a) @ round_to_bf16(b)
        out.setdefault(("bf16 inputs", ""), {})[kind] = worst_row_error(bf16, truth)
        for fmt in FORMATS:
            for label, block in SCHEMES:
                result = fp8_matmul(a, b, fmt, block)
                out.setdefault((label, fmt.name), {})[kind] = worst_row_error(
                    result, truth
                )
    return out


def error_table() -> str:
    rows = [
        [label, fmt or "(reference)", f"{e['random']:.2%}", f"{e['outliers']:.2%}"]
        for (label, fmt), e in scheme_errors().items()
    ]
    header = ["inputs rounded to", "format", "random inputs", "outlier-heavy inputs"]
    return markdown_table(header, rows) + "\n"


def block_sweep(fmt: Fp8Format = E4M3, shape=SHAPE, seed: int = 0) -> list[tuple]:
    """(block, worst-row error) on the outlier-heavy inputs, per tensor first."""
    m, n, k = shape
    a, b = outlier_pair(m, n, k, seed)
    truth = a.astype(np.float64) @ b.astype(np.float64)
    return [
        (block, worst_row_error(fp8_matmul(a, b, fmt, block), truth))
        for block in BLOCKS
    ]


def scale_bytes(m: int, n: int, k: int, block: int | None) -> int:
    """float32 scales a GEMM reads beside its FP8 operands, both operands
    scaled along K in blocks of `block` (None: one per tensor)."""
    if block is None:
        return 2 * 4
    return 4 * (m + n) * (k // block)


# --8<-- [start:accumulate]
def round_to_bits(x: np.ndarray, bits: int) -> np.ndarray:
    """Keep `bits` significant bits (the leading one included), ties to even."""
    mantissa, exponent = np.frexp(x)
    return np.ldexp(np.rint(mantissa * 2.0**bits), exponent - bits)


def accumulate(a: np.ndarray, b: np.ndarray, bits: int, promote_every: int = 0):
    """A dot product's K loop with an accumulator of `bits` significant bits,
    rounded after every addition. With promote_every, the partial sum is
    added into a float32 total every `promote_every` steps and restarted."""
    total = np.zeros((a.shape[0], b.shape[1]))
    partial = np.zeros_like(total)
    for step in range(a.shape[1]):
        partial = round_to_bits(partial + np.outer(a[:, step], b[step]), bits)
        if promote_every and (step + 1) % promote_every == 0:
            total, partial = round_to_bits(total + partial, 24), np.zeros_like(total)
    return round_to_bits(total + partial, 24)
    # --8<-- [end:accumulate]


NARROW_BITS = 14  # DeepSeek-V3's reported FP8 accumulation width on H800
PROMOTE_EVERY = 128  # and their promotion interval
ACCUMULATORS = (
    ("bf16 (8 bits)", 8, 0),
    (f"{NARROW_BITS} bits", NARROW_BITS, 0),
    (f"{NARROW_BITS} bits, promoted every {PROMOTE_EVERY}", NARROW_BITS, PROMOTE_EVERY),
    ("float32 (24 bits)", 24, 0),
)
ACCUMULATE_KS = (256, 1024, 4096)


@functools.lru_cache(maxsize=4)
def accumulation_errors(m: int = 8, n: int = 8, seed: int = 0) -> dict:
    """accumulator label -> {K: worst-row error}, on e4m3 values whose
    products are all positive on average (a mean of 0.5), so the sum grows
    with K as real activations and weights often do."""
    rng = np.random.default_rng(seed)
    out = {}
    for k in ACCUMULATE_KS:
        a = round_to_format(rng.standard_normal((m, k)) + 0.5, E4M3)
        b = round_to_format(rng.standard_normal((k, n)) + 0.5, E4M3)
        truth = a @ b  # exact in float64 for these short sums of FP8 products
        for label, bits, promote in ACCUMULATORS:
            result = accumulate(a, b, bits, promote)
            out.setdefault(label, {})[k] = worst_row_error(result, truth)
    return out


def accumulation_table() -> str:
    errors = accumulation_errors()
    header = ["accumulator"] + [f"K = {k}" for k in ACCUMULATE_KS]
    rows = [
        [label] + [f"{e[k]:.3%}" for k in ACCUMULATE_KS] for label, e in errors.items()
    ]
    return markdown_table(header, rows) + "\n"


# --8<-- [start:roofline]
def gemm_floor_s(m: int, n: int, k: int, in_bytes: int, flop_per_s: float, device=H200):
    """The roofline's lower bound on one GEMM: operands read once, a bf16
    output written once."""
    flops = 2 * m * n * k
    moved = (m * k + k * n) * in_bytes + m * n * 2
    return max(flops / flop_per_s, moved / device.hbm_bytes_per_s), flops / moved


def fp8_gain(m: int, n: int, k: int, device=H200) -> dict:
    bf16_s, bf16_intensity = gemm_floor_s(m, n, k, 2, device.bf16_dense_flop_per_s)
    fp8_s, fp8_intensity = gemm_floor_s(m, n, k, 1, device.fp8_dense_flop_per_s)
    return {
        "bf16_s": bf16_s,
        "fp8_s": fp8_s,
        "gain": bf16_s / fp8_s,
        "fp8_intensity": fp8_intensity,
        "fp8_bound": "compute" if fp8_intensity > ridge(device, fp8=True) else "memory",
    }
    # --8<-- [end:roofline]


def ridge(device=H200, fp8: bool = False) -> float:
    rate = device.fp8_dense_flop_per_s if fp8 else device.bf16_dense_flop_per_s
    return rate / device.hbm_bytes_per_s


GEMM_SHAPES = ((16, 8192, 8192), (256, 8192, 8192), (8192, 8192, 8192))


def roofline_table() -> str:
    rows = []
    for m, n, k in GEMM_SHAPES:
        g = fp8_gain(m, n, k)
        rows.append(
            [
                f"{m} × {n} × {k}",
                f"{g['bf16_s'] * 1e6:.1f} µs",
                f"{g['fp8_s'] * 1e6:.1f} µs",
                f"{g['gain']:.2f}×",
                f"{g['fp8_intensity']:.0f}",
                g["fp8_bound"],
            ]
        )
    header = [
        "M × N × K",
        "bf16 floor",
        "FP8 floor",
        "gain",
        "FP8 FLOP/byte",
        "FP8 bound",
    ]
    return markdown_table(header, rows) + "\n"


def grid_figure():
    """The positive values of e4m3 and e5m2 on a log axis: constant relative
    spacing inside each binade, and where each format's range ends."""
    from snippets.lib.diagrams import ACCENT, FONT_SIZE, SECOND, figure, style_axes

    fig = figure(6.5, 2.4)
    ax = fig.add_subplot()
    for row, (fmt, colour) in enumerate(((E4M3, ACCENT), (E5M2, SECOND))):
        values = [v for v in fmt.positive_values() if v > 0]
        ax.scatter(values, [row] * len(values), s=6, color=colour, marker="|")
        ax.text(values[-1] * 1.6, row, fmt.name, va="center", fontsize=FONT_SIZE)
    ax.set_xscale("log", base=2)
    ax.set_yticks([])
    ax.set_ylim(-0.7, 1.7)
    largest = max(fmt.positive_values()[-1] for fmt in (E4M3, E5M2))
    ax.set_xlim(right=largest * 32)  # room for the names after the last value
    ax.set_xlabel("positive finite values (log scale, base 2)", fontsize=FONT_SIZE)
    style_axes(ax)
    fig.tight_layout()
    return fig


# --8<-- [start:exercise]
EXERCISE_GEMM = (64, 4096, 4096)
EXERCISE_VALUE, EXERCISE_TENSOR_AMAX, EXERCISE_ROW_AMAX = 1e-3, 3000.0, 1.0


def exercise_survives(value: float, amax: float, fmt: Fp8Format = E4M3) -> float:
    """What `value` becomes after scaling by amax / max, rounding, and
    scaling back: 0.0 means it flushed to zero."""
    scale = amax / fmt.positive_values()[-1]
    return float(round_to_format(np.array([value / scale]), fmt)[0] * scale)
    # --8<-- [end:exercise]


def exercise_facts() -> dict[str, str]:
    g = fp8_gain(*EXERCISE_GEMM)
    m, n, k = EXERCISE_GEMM
    per_tensor = exercise_survives(EXERCISE_VALUE, EXERCISE_TENSOR_AMAX)
    per_row = exercise_survives(EXERCISE_VALUE, EXERCISE_ROW_AMAX)
    top = E4M3.positive_values()[-1]
    return {
        "ex.gemm": f"{m} × {k} by {k} × {n}",
        "ex.intensity": f"{g['fp8_intensity']:.0f}",
        "ex.bound": g["fp8_bound"],
        "ex.gain": f"{g['gain']:.2f}×",
        "ex.bf16_us": f"{g['bf16_s'] * 1e6:.1f} µs",
        "ex.fp8_us": f"{g['fp8_s'] * 1e6:.1f} µs",
        "ex.value": f"{EXERCISE_VALUE:g}",
        "ex.tensor_amax": f"{EXERCISE_TENSOR_AMAX:g}",
        "ex.row_amax": f"{EXERCISE_ROW_AMAX:g}",
        "ex.scaled_tensor": f"{EXERCISE_VALUE * top / EXERCISE_TENSOR_AMAX:.2e}",
        "ex.smallest": f"{E4M3.positive_values()[1]:.2e}",
        "ex.per_tensor": f"{per_tensor:g}",
        "ex.per_row": f"{per_row:.3g}",
    }


def facts() -> dict[str, str]:
    e4, e5 = format_summary(E4M3), format_summary(E5M2)
    errors = scheme_errors()
    acc = accumulation_errors()
    sweep = dict(block_sweep())
    m, n, k = SHAPE
    small, _, big = GEMM_SHAPES
    out = {
        "e4m3.max": f"{e4['max']:g}",
        "e5m2.max": f"{e5['max']:g}",
        "e4m3.step": f"{e4['relative_step'] / 2:.2%}",
        "e5m2.step": f"{e5['relative_step'] / 2:.1%}",
        "e4m3.binades": f"{e4['normal_range_binades']:.1f}",
        "e5m2.binades": f"{e5['normal_range_binades']:.1f}",
        "shape": f"{m} × {k} by {k} × {n}",
        "k": f"{k}",
        "outlier.channels": f"{max(1, k // OUTLIER_EVERY)}",
        "outlier.decades": f"{ROW_DECADES}",
        "outlier.factor": f"{OUTLIER_FACTOR:,.0f}",
        "e4m3.mantissa": f"{E4M3.mantissa_bits}",
        "e5m2.mantissa": f"{E5M2.mantissa_bits}",
        "block.small": f"{SCHEMES[-1][1]}",
        "block.large": f"1 × {SCHEMES[-2][1]}",
        "mx.block": f"{MX_BLOCK}",
        "acc.narrow": f"{NARROW_BITS}",
        "bf16.outliers": f"{errors[('bf16 inputs', '')]['outliers']:.2%}",
        "tensor.outliers": f"{errors[('per tensor', 'e4m3')]['outliers']:.0%}",
        "row.outliers": f"{errors[('per row', 'e4m3')]['outliers']:.1%}",
        "block32.outliers": f"{errors[(SCHEMES[-1][0], 'e4m3')]['outliers']:.1%}",
        "row.random": f"{errors[('per row', 'e4m3')]['random']:.1%}",
        "tensor.random": f"{errors[('per tensor', 'e4m3')]['random']:.1%}",
        "e5m2.row.random": f"{errors[('per row', 'e5m2')]['random']:.1%}",
        "sweep.best": f"{min(v for b, v in sweep.items() if b):.1%}",
        "acc.k": f"{ACCUMULATE_KS[-1]}",
        "acc.bf16": f"{acc['bf16 (8 bits)'][ACCUMULATE_KS[-1]]:.1%}",
        "acc.fp32": f"{acc['float32 (24 bits)'][ACCUMULATE_KS[-1]] * 100:.1e}%",
        "ridge.bf16": f"{ridge():.0f}",
        "ridge.fp8": f"{ridge(fp8=True):.0f}",
        "rate.ratio": f"{H200.fp8_dense_flop_per_s / H200.bf16_dense_flop_per_s:g}×",
        "gain.small": f"{fp8_gain(*small)['gain']:.2f}×",
        "gain.big": f"{fp8_gain(*big)['gain']:.2f}×",
        "unscaled.outliers": f"{errors[('unscaled', 'e4m3')]['outliers']:.0%}",
        "unscaled.random": f"{errors[('unscaled', 'e4m3')]['random']:.1%}",
        "scales.row": f"{scale_bytes(*big, big[2]) / 2**10:.0f} KiB",
        "scales.block128": f"{scale_bytes(*big, 128) / 2**20:.1f} MiB",
        "operands.fp8": f"{2 * big[0] * big[2] / 2**20:.0f} MiB",
        "acc.promote": f"{PROMOTE_EVERY}",
    }
    return {**out, **exercise_facts()}


if __name__ == "__main__":
    for fmt in FORMATS:
        s = format_summary(fmt)
        print(
            f"{fmt.name}: max {s['max']:g}, step {s['relative_step']:.3f}, "
            f"{s['finite_values']} finite values"
        )
    for (label, fmt), e in scheme_errors().items():
        print(
            f"{label:>15} {fmt or 'ref':>4}: random {e['random']:.2%},",
            f"outliers {e['outliers']:.2%}",
        )
