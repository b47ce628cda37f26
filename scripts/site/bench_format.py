"""Times, spreads, rates and sizes as the benchmark pages and the decision
memo print them (used by scripts/site/bench_pages.py and memo.py)."""

from __future__ import annotations


def _unit_for(ms: float) -> tuple[str, float]:
    if ms < 1.0:
        return "µs", 1e3
    if ms < 1e3:
        return "ms", 1.0
    return "s", 1e-3


def _digits(value: float) -> str:
    """Three significant digits, never in scientific notation (a spread's
    end can be a thousand times its unit)."""
    return f"{value:.3g}" if abs(value) < 1e3 else f"{value:,.0f}"


def format_time(ms: float) -> str:
    unit, scale = _unit_for(ms)
    return f"{_digits(ms * scale)} {unit}"


def format_spread(row: dict) -> str:
    unit, scale = _unit_for(row["median_ms"])
    return f"{_digits(row['p20_ms'] * scale)}–{_digits(row['p80_ms'] * scale)} {unit}"


def format_rate(value: float, metric: str) -> str:
    if metric == "bandwidth":
        return f"{value / 1e9:.4g} GB/s"
    return f"{value / 1e12:.4g} TFLOP/s"


def format_bytes(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count} B"
