"""The benchmark method's numbers and rules, shared by the runner and pages.

The runner (``scripts/bench``) applies them and the pages
(``scripts/site/bench_pages.py``) state them, so both read this one module.
It imports neither torch nor Triton. Run and row statuses are not here: they
are defined once, in ``schemas/bench.schema.json``, and read with
``scripts.results.enum("bench", "row_status")``.
"""

from __future__ import annotations

from typing import Any

from scripts.results import ResultFileError

# The method (docs/reference/benchmarks.md states these through method_value).
METHOD = {
    "warmup_ms": 100.0,  # at least this much warm-up per provider
    "min_rounds": 3,  # interleaved rounds, each provider once per round
    "flush_l2_multiple": 4,  # the L2 flush writes this many times L2
    "launch_bound_us": 10.0,  # best median below this: launch-bound
    "l2_affected_multiple": 2,  # working set below this many L2s: L2-affected
    "hbm_bound_multiple": 4,  # working set at least this many L2s ...
    "hbm_bound_min_us": 50.0,  # ... and best median at least this: HBM-bound
    # A time below bytes / (best copy bandwidth x slack) is impossible.
    "plausibility_slack": 1.05,
    # Speedups past (what the byte counts allow) x margin are suspect.
    "suspect_margin": 1.2,
}
LAUNCH_BOUND_MS = METHOD["launch_bound_us"] / 1e3

#: profile -> device kind -> (rounds, timed calls per round). The "compare"
#: profile is the qualification project's comparison, which times more calls
#: per round on a GPU, where each call is short.
PROFILE_ROUNDS: dict[str, dict[str, tuple[int, int]]] = {
    "tiny": {"cpu": (3, 5), "cuda": (3, 5)},
    "quick": {"cpu": (3, 10), "cuda": (3, 10)},
    "full": {"cpu": (5, 10), "cuda": (5, 10)},
    "compare": {"cpu": (5, 10), "cuda": (5, 20)},
}
PROFILES = tuple(PROFILE_ROUNDS)

LABEL_LAUNCH = "launch-bound"
LABEL_L2 = "L2-affected"
LABEL_HBM = "HBM-bound"
LABEL_FLOP = "FLOP-bound"
LABEL_NONE = "unclassified"
LABEL_CPU = "CPU host timing"


def rounds_for(profile: str, device_kind: str) -> tuple[int, int]:
    """(rounds, timed calls per round) of one profile on "cpu" or "cuda"."""
    if profile not in PROFILE_ROUNDS:
        raise KeyError(f"no profile {profile!r}; known: {', '.join(PROFILES)}")
    return PROFILE_ROUNDS[profile][device_kind]


def classify(
    metric: str,
    best_median_ms: float | None,
    working_set_bytes: int,
    l2_bytes: int | None,
    on_gpu: bool = True,
) -> list[str]:
    """Labels for one shape, from its best median and its working set."""
    if not on_gpu:
        return [LABEL_CPU]
    if best_median_ms is None or not l2_bytes:
        return [LABEL_NONE]
    labels = []
    if best_median_ms < LAUNCH_BOUND_MS:
        labels.append(LABEL_LAUNCH)
    if working_set_bytes < METHOD["l2_affected_multiple"] * l2_bytes:
        labels.append(LABEL_L2)
    elif (
        working_set_bytes >= METHOD["hbm_bound_multiple"] * l2_bytes
        and best_median_ms >= METHOD["hbm_bound_min_us"] / 1e3
    ):
        # Matmul and attention reuse their data on chip: out of L2 and long
        # enough, they are limited by arithmetic, not by HBM.
        labels.append(LABEL_HBM if metric == "bandwidth" else LABEL_FLOP)
    return labels or [LABEL_NONE]


def plausibility_flags(
    bytes_moved: int, median_ms: float, best_copy_bytes_per_s: float
) -> list[str]:
    """An "impossible" flag when the time is below what moving the bytes at
    the best measured copy bandwidth takes (with a small slack)."""
    if not bytes_moved or not best_copy_bytes_per_s:
        return []
    floor_ms = (
        bytes_moved / (best_copy_bytes_per_s * METHOD["plausibility_slack"]) * 1e3
    )
    if median_ms < floor_ms:
        return [
            f"impossible: median {median_ms:.4g} ms is below {floor_ms:.4g} ms, "
            "the time to move the model's bytes at the measured copy bandwidth"
        ]
    return []


def check_consistency(data: dict[str, Any], shown: str) -> None:
    """The checks on a bench file that JSON Schema cannot express: every
    row's kernel is listed in ``kernels``, and p20 <= median <= p80. Raises
    ResultFileError naming the file and the field (after schema validation)."""
    kernels = data["kernels"]
    for i, row in enumerate(data["rows"]):
        where = f"rows[{i}]"
        if row["kernel"] not in kernels:
            raise ResultFileError(
                f"{shown}: field '{where}.kernel' names {row['kernel']!r}, "
                "which 'kernels' does not list"
            )
        if row.get("timed") and not (
            row["p20_ms"] <= row["median_ms"] <= row["p80_ms"]
        ):
            raise ResultFileError(
                f"{shown}: fields '{where}.p20_ms' <= 'median_ms' <= 'p80_ms' "
                "do not hold"
            )
