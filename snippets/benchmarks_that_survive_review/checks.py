"""Checks a benchmark row must survive before anyone reads its speedup
(docs/kernels/to-the-service/benchmarks-that-survive-review.md).

Standard library only; device figures from ``kernels.devices``.
"""

from __future__ import annotations

import math

# --8<-- [start:plausible]
from evidence.method import METHOD
from kernels.devices import H200

#: A read-heavy kernel may beat a copy (half writes, with the bus turnaround
#: between them) by a few percent; past this factor the row is suspect.
COPY_SLACK = METHOD["plausibility_slack"]


def impossible(bytes_moved: int, median_s: float, copy_bytes_per_s: float) -> list[str]:
    """Reasons to distrust a time: past the copy measured in the same run by
    more than the slack (a heuristic: flag and investigate), or past the
    datasheet's HBM bandwidth (a hard bound)."""
    reasons = []
    if bytes_moved / median_s > copy_bytes_per_s * COPY_SLACK:
        reasons.append("past the same run's measured copy by more than the slack")
    if bytes_moved / median_s > H200.hbm_bytes_per_s:
        reasons.append("faster than the HBM datasheet figure")
    return reasons


# --8<-- [end:plausible]


# --8<-- [start:nan]
def naive_close(got: list[float], want: list[float], tol: float) -> bool:
    """The verifier that lets NaN through: it looks for a failure, and every
    comparison with NaN is False, so NaN is never a failure."""
    return not any(abs(g - w) > tol for g, w in zip(got, want, strict=True))


def strict_close(got: list[float], want: list[float], tol: float) -> bool:
    """Ask for success instead; NaN and Inf must match position for position."""
    for g, w in zip(got, want, strict=True):
        if math.isnan(w) or math.isnan(g):
            if not (math.isnan(w) and math.isnan(g)):
                return False
        elif not abs(g - w) <= tol:
            return False
    return True


# --8<-- [end:nan]


def fmt_nan_case() -> str:
    want = [1.0, 2.0, 3.0]
    got = [1.0, float("nan"), 3.0]
    return (
        f"naive check: {'pass' if naive_close(got, want, 1e-3) else 'fail'}; "
        f"strict check: {'pass' if strict_close(got, want, 1e-3) else 'fail'}"
    )


COPY_SHARE = 0.9  # the same run's copy reached this share of the HBM figure


def fmt_share(fraction_of_hbm: float = COPY_SHARE) -> str:
    """A share of the HBM datasheet figure as the page shows it, e.g. "90%"."""
    return f"{fraction_of_hbm:.0%}"


def fmt_impossible(fraction_of_hbm: float) -> str:
    """A row whose implied bandwidth is `fraction_of_hbm` of the datasheet,
    judged against a copy that reached `COPY_SHARE` of it."""
    nbytes = 805306368
    seconds = nbytes / (fraction_of_hbm * H200.hbm_bytes_per_s)
    found = impossible(nbytes, seconds, COPY_SHARE * H200.hbm_bytes_per_s)
    return "; ".join(found) if found else "plausible"


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "impossible.0.8": fmt_impossible(0.8),
        "nan-case": fmt_nan_case(),
        "impossible.0.95": fmt_impossible(0.95),
        "impossible.1.3": fmt_impossible(1.3),
        "share": fmt_share(),
        "share.0.8": fmt_share(0.8),
        "share.0.95": fmt_share(0.95),
        "share.1.3": fmt_share(1.3),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    print(fmt_nan_case())
    for fraction in (0.8, 0.95, 1.3):
        print(f"row at {fmt_share(fraction)} of HBM: {fmt_impossible(fraction)}")
