"""What an autotuned kernel's first call costs, and how noise picks its winner.

Shown on docs/kernels/to-the-service/autotuning-honestly.md. Evidence kind:
pencil model. The benchmarking loop is Triton 3.8's own (``do_bench`` in
``triton/testing.py`` and ``Autotuner`` in ``triton/runtime/autotuner.py``,
read from the installed source); the compile time per config is an
assumption stated below, not a measurement; the flush and the L2 size come
from ``kernels/devices.py``. No GPU time is claimed.
"""

import math
import random

from evidence.tables import markdown_table
from kernels.devices import H200

# --8<-- [start:do-bench]
# Triton 3.8's defaults, from its source:
WARMUP_MS = 25  # do_bench runs the kernel for about this long before timing
REP_MS = 100  # and times it for about this long
ESTIMATE_CALLS = 5  # calls used to estimate one call's time first
FLUSH_BYTES = 256 * 2**20  # zeroed before every timed call to empty L2
QUANTILES = (0.5, 0.2, 0.8)  # the autotuner ranks configs by the median first
# The JIT compiles a separate specialisation for an integer argument or a
# tensor's address divisible by this (triton/backends/compiler.py):
ALIGNMENT = 16


def bench_ms(kernel_ms: float, device=H200) -> float:
    """Device time do_bench spends on one config: one first call, the
    estimate, the warmup, and the timed repetitions (each after a flush)."""
    flush_ms = FLUSH_BYTES / device.hbm_bytes_per_s * 1e3
    estimate = flush_ms + kernel_ms  # the estimate loop flushes too
    warmups = max(1, int(WARMUP_MS / estimate))
    reps = max(1, int(REP_MS / estimate))
    return kernel_ms + ESTIMATE_CALLS * estimate + warmups * kernel_ms + reps * estimate
    # --8<-- [end:do-bench]


# --8<-- [start:first-call]
COMPILE_S = 1.0  # ASSUMPTION: seconds to compile one config, cold cache


def first_call_s(configs: int, kernel_ms: float, compile_s: float = COMPILE_S) -> float:
    """Every config is compiled and benchmarked before the first result."""
    return configs * (compile_s + bench_ms(kernel_ms) / 1e3)


def sweep_s(shapes: int, configs: int, kernel_ms: float, specialisations: int = 1):
    """A sweep over `shapes` distinct keys tunes once per key; a config is
    compiled again only for a new specialisation (the JIT's cache key holds
    constexprs and alignment, not the sizes)."""
    compile_total = specialisations * configs * COMPILE_S
    return compile_total + shapes * configs * bench_ms(kernel_ms) / 1e3
    # --8<-- [end:first-call]


CONFIG_COUNTS = (1, 16, 64, 128)
KERNEL_MS = (0.01, 1.0, 10.0)


def first_call_table() -> str:
    header = ["configs"] + [f"kernel of {k:g} ms" for k in KERNEL_MS]
    rows = [
        [count] + [f"{first_call_s(count, k):.1f} s" for k in KERNEL_MS]
        for count in CONFIG_COUNTS
    ]
    return markdown_table(header, rows) + "\n"


# --8<-- [start:noise]
def win_shares(true_ms: list[float], noise: float, trials: int = 2000, seed: int = 0):
    """How often each config comes out fastest when every measured median
    is off by a random relative error of standard deviation `noise`."""
    rng = random.Random(seed)
    wins = [0] * len(true_ms)
    for _ in range(trials):
        measured = [t * (1 + rng.gauss(0, noise)) for t in true_ms]
        wins[measured.index(min(measured))] += 1
    return [w / trials for w in wins]
    # --8<-- [end:noise]


NOISE_CONFIGS_MS = (1.00, 1.01, 1.02, 1.05)  # four configs within 5%
NOISE_LEVELS = (0.001, 0.01, 0.03)


def noise_table() -> str:
    header = ["run-to-run noise"] + [f"config at {t:.2f} ms" for t in NOISE_CONFIGS_MS]
    rows = [
        [f"{sigma:.1%}"]
        + [f"{s:.0%}" for s in win_shares(list(NOISE_CONFIGS_MS), sigma)]
        for sigma in NOISE_LEVELS
    ]
    return markdown_table(header, rows) + "\n"


L2_EXAMPLE_SIDE = 2048


def fits_in_l2(nbytes: int, device=H200) -> bool:
    return nbytes <= device.l2_bytes


def first_call_figure():
    """First-call time against the number of configs: a short and a long
    kernel with the assumed compile time, and the short one with every
    config already compiled (a warm cache), to show which term dominates."""
    from snippets.lib.diagrams import (
        ACCENT,
        FONT_SIZE,
        MUTED,
        SECOND,
        figure,
        style_axes,
    )

    fig = figure(6.0, 3.2)
    ax = fig.add_subplot()
    counts = list(range(1, 129))
    lines = (
        (KERNEL_MS[0], COMPILE_S, ACCENT),
        (KERNEL_MS[-1], COMPILE_S, SECOND),
        (KERNEL_MS[0], 0.0, MUTED),
    )
    for kernel_ms, compile_s, colour in lines:
        label = f"{kernel_ms:g} ms kernel, " + (
            f"{compile_s:g} s compile" if compile_s else "already compiled"
        )
        times = [first_call_s(c, kernel_ms, compile_s) for c in counts]
        ax.plot(counts, times, color=colour, label=label)
    ax.set_xlabel("configs tried", fontsize=FONT_SIZE)
    ax.set_ylabel("first call, s (model)", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE, frameon=False)
    style_axes(ax, grid=True)
    fig.subplots_adjust(bottom=0.18, left=0.14)
    return fig


# --8<-- [start:exercise]
EXERCISE_SPACE = {
    "BLOCK_M": 3,
    "BLOCK_N": 3,
    "BLOCK_K": 2,
    "num_stages": 2,
    "num_warps": 2,
}
EXERCISE_TOP_K = 8
EXERCISE_KERNEL_MS = 0.5
EXERCISE_SHAPES = 12


def exercise() -> dict:
    configs = math.prod(EXERCISE_SPACE.values())
    full = first_call_s(configs, EXERCISE_KERNEL_MS)
    # prune_configs_by={"perf_model": model, "top_k": 8}: the model ranks the
    # configs before any of them compiles, so only the top_k compile and run.
    pruned = first_call_s(EXERCISE_TOP_K, EXERCISE_KERNEL_MS)
    sweep = sweep_s(EXERCISE_SHAPES, configs, EXERCISE_KERNEL_MS)
    return {"configs": configs, "full_s": full, "pruned_s": pruned, "sweep_s": sweep}
    # --8<-- [end:exercise]


def facts() -> dict[str, str]:
    ex = exercise()
    shares = win_shares(list(NOISE_CONFIGS_MS), NOISE_LEVELS[-1])
    flush_ms = FLUSH_BYTES / H200.hbm_bytes_per_s * 1e3
    square = L2_EXAMPLE_SIDE**2 * 2 * 3  # A, B and C of a square bf16 matmul
    return {
        "warmup": f"{WARMUP_MS} ms",
        "rep": f"{REP_MS} ms",
        "estimate": f"{ESTIMATE_CALLS}",
        "flush": f"{FLUSH_BYTES / 2**20:.0f} MiB",
        "flush.ms": f"{flush_ms * 1e3:.0f} µs",
        "flush.l2": f"{FLUSH_BYTES / H200.l2_bytes:.1f}×",
        "l2": f"{H200.l2_bytes / 2**20:.0f} MiB",
        "compile": f"{COMPILE_S:g} s",
        "align": f"{ALIGNMENT}",
        "bench.small": f"{bench_ms(KERNEL_MS[0]):.0f} ms",
        "noise.best": f"{shares[0]:.0%}",
        "noise.sigma": f"{NOISE_LEVELS[-1]:.0%}",
        "noise.gap": f"{NOISE_CONFIGS_MS[-1] / NOISE_CONFIGS_MS[0] - 1:.0%}",
        "square.side": f"{L2_EXAMPLE_SIDE}",
        "square.mib": f"{square / 2**20:.0f} MiB",
        "square.fits": "fits" if fits_in_l2(square) else "does not fit",
        "ex.space": " × ".join(
            f"{v} values of `{k}`" for k, v in EXERCISE_SPACE.items()
        ),
        "ex.configs": f"{ex['configs']}",
        "ex.kernel": f"{EXERCISE_KERNEL_MS:g} ms",
        "ex.top_k": f"{EXERCISE_TOP_K}",
        "ex.full": f"{ex['full_s']:.0f} s",
        "ex.pruned": f"{ex['pruned_s']:.1f} s",
        "ex.shapes": f"{EXERCISE_SHAPES}",
        "ex.sweep": f"{ex['sweep_s']:.0f} s",
        "ex.sweep.min": f"{ex['sweep_s'] / 60:.1f} minutes",
    }


if __name__ == "__main__":
    print(f"one config, 10 µs kernel: {bench_ms(0.01):.0f} ms of benchmarking")
    for count in CONFIG_COUNTS:
        print(
            f"{count:>4} configs: first call {first_call_s(count, 0.01):.1f} s (model)"
        )
    print(
        "win shares at 3% noise:",
        [f"{s:.0%}" for s in win_shares(list(NOISE_CONFIGS_MS), 0.03)],
    )
