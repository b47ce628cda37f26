"""Bytes and launches of relu(x + residual), fused and unfused.

Shown on docs/kernels/memory-bound/fusion-residual-add-relu.md. Evidence
kind: pencil model. It counts bytes and launches and turns them into time
with two figures: the H200's datasheet bandwidth (kernels/devices.py) and a
per-launch cost that is an assumption, stated as one (WORKED). It cannot
see a cache, a clock or a queue; it says what fusion can win, not what an
application does win.
"""

from kernels.devices import H200

# The worked example: a bf16 activation of a transformer block, and the
# assumed fixed cost of one kernel launch (replace it by your measurement).
WORKED = {"rows": 8192, "cols": 4096, "itemsize": 2, "launch_us": 4.0}


# --8<-- [start:bytes]
def unfused_bytes(numel: int, itemsize: int) -> int:
    """Eager PyTorch: `tmp = x + residual` reads two tensors and writes
    one; `relu(tmp)` reads tmp and writes the output. Five passes."""
    return 5 * numel * itemsize


def fused_bytes(numel: int, itemsize: int) -> int:
    """One kernel reads x and residual and writes the output: tmp never
    leaves the registers. Three passes."""
    return 3 * numel * itemsize
    # --8<-- [end:bytes]


# --8<-- [start:time-model]
def model_time_us(
    numel: int,
    itemsize: int,
    *,
    fused: bool,
    launch_us: float,
    bytes_per_s: float = H200.hbm_bytes_per_s,
    tmp_in_l2: bool = False,
) -> float:
    """Each launch costs launch_us; each HBM byte costs 1 / bytes_per_s.
    With tmp_in_l2 the unfused intermediate is written to and read from
    L2 only (free in this model), so its two passes cost no HBM time."""
    for name, value in (("numel", numel), ("itemsize", itemsize)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if launch_us < 0:
        raise ValueError(f"launch_us must be >= 0, got {launch_us}")
    if fused:
        launches, hbm = 1, fused_bytes(numel, itemsize)
    else:
        launches, hbm = 2, unfused_bytes(numel, itemsize)
        if tmp_in_l2:
            hbm -= 2 * numel * itemsize  # tmp written and read on chip
    return launches * launch_us + hbm / bytes_per_s * 1e6


def model_speedup(numel: int, itemsize: int, launch_us: float, **kw) -> float:
    """Unfused time over fused time in the model."""
    slow = model_time_us(numel, itemsize, fused=False, launch_us=launch_us, **kw)
    fast = model_time_us(numel, itemsize, fused=True, launch_us=launch_us, **kw)
    return slow / fast
    # --8<-- [end:time-model]


# --8<-- [start:l2]
def intermediate_fits_l2(numel: int, itemsize: int, l2_bytes: int = H200.l2_bytes):
    """Can tmp stay in L2 between the two kernels? Only if tmp alone fits;
    x, residual and the output stream through the same cache meanwhile, so
    fitting is necessary, not sufficient."""
    return numel * itemsize <= l2_bytes
    # --8<-- [end:l2]


def crossover_numel(itemsize: int, launch_us: float) -> int:
    """The size at which the fused kernel's HBM time equals one launch:
    below it the launches dominate, above it the bytes do."""
    return int(launch_us * 1e-6 * H200.hbm_bytes_per_s / (3 * itemsize))


def _size(numel: int, itemsize: int) -> str:
    mb = numel * itemsize / 2**20
    return f"{mb:,.3g} MiB" if mb >= 1 else f"{numel * itemsize / 1024:,.3g} KiB"


SIZES = (1 << 12, 1 << 16, 1 << 20, 1 << 23, 1 << 25, 1 << 28)


def regime_table(itemsize: int = 2, launch_us: float = WORKED["launch_us"]) -> str:
    """Markdown: modelled speedup of fusion over a range of sizes."""
    rows = [
        "| elements | tmp size | tmp fits in L2? | speedup, tmp in HBM "
        "| speedup, tmp in L2 |",
        "| ---: | ---: | :---: | ---: | ---: |",
    ]
    for numel in SIZES:
        fits = intermediate_fits_l2(numel, itemsize)
        cold = model_speedup(numel, itemsize, launch_us)
        warm = model_speedup(numel, itemsize, launch_us, tmp_in_l2=True)
        warm_text = f"{warm:.2f}×" if fits else "—"
        rows.append(
            f"| {numel:,} | {_size(numel, itemsize)} | {'yes' if fits else 'no'} "
            f"| {cold:.2f}× | {warm_text} |"
        )
    return "\n".join(rows)


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name: the worked
    example's, and each exercise's (exercise.NAME.KEY)."""
    rows, cols, itemsize = WORKED["rows"], WORKED["cols"], WORKED["itemsize"]
    numel = rows * cols
    launch = WORKED["launch_us"]
    saved = unfused_bytes(numel, itemsize) - fused_bytes(numel, itemsize)
    values = {
        "shape": f"{rows} × {cols} bf16 ({_size(numel, itemsize)} per tensor)",
        "unfused": f"{unfused_bytes(numel, itemsize) / 1e6:,.0f} MB",
        "fused": f"{fused_bytes(numel, itemsize) / 1e6:,.0f} MB",
        "saved": f"{saved / 1e6:,.0f} MB",
        "ratio": f"{unfused_bytes(1, 1) / fused_bytes(1, 1):.3g}",
        "launch": f"{launch:g} µs",
        "l2": f"{H200.l2_bytes // 2**20} MiB",
        "bandwidth": f"{H200.hbm_bytes_per_s / 1e12:g} TB/s",
        "crossover": f"{crossover_numel(itemsize, launch):,}",
        "speedup": f"{model_speedup(numel, itemsize, launch):.2f}×",
        "tmp-fits": "fits" if intermediate_fits_l2(numel, itemsize) else "does not fit",
        "tiny-speedup": f"{model_speedup(SIZES[0], itemsize, launch):.2f}×",
    }
    for name in EXERCISES:
        values.update(exercise_facts(name))
    return values


# --8<-- [start:exercise]
def exercise_answer(numel: int, itemsize: int, launch_us: float) -> dict:
    """Speedups of fusion for one size: tmp in HBM, tmp in L2, and the
    two limits (launches only, bytes only)."""
    return {
        "tmp_in_hbm": model_speedup(numel, itemsize, launch_us),
        "tmp_in_l2": model_speedup(numel, itemsize, launch_us, tmp_in_l2=True),
        "fits_l2": intermediate_fits_l2(numel, itemsize),
        "launch_limit": 2.0,
        "byte_limit": unfused_bytes(numel, itemsize) / fused_bytes(numel, itemsize),
    }
    # --8<-- [end:exercise]


EXERCISES = {"fp32-4m": (1 << 22, 4, 4.0), "bf16-tiny": (1 << 14, 2, 4.0)}


def exercise_facts(name: str) -> dict[str, str]:
    """One exercise's sizes and the model's answer, formatted."""
    numel, itemsize, launch = EXERCISES[name]
    a = exercise_answer(numel, itemsize, launch)
    return {
        f"exercise.{name}.numel": f"{numel:,}",
        f"exercise.{name}.itemsize": f"{itemsize}",
        f"exercise.{name}.launch": f"{launch:g} µs",
        f"exercise.{name}.hbm": f"{a['tmp_in_hbm']:.2f}×",
        f"exercise.{name}.l2": f"{a['tmp_in_l2']:.2f}×",
        f"exercise.{name}.fits": "fits" if a["fits_l2"] else "does not fit",
        f"exercise.{name}.launch-limit": f"{a['launch_limit']:g}×",
        f"exercise.{name}.byte-limit": f"{a['byte_limit']:.3g}×",
    }


if __name__ == "__main__":
    given = facts()
    for key in ("shape", "unfused", "fused", "ratio", "crossover", "speedup"):
        print(f"{key}: {given[key]}")
    print(regime_table())
