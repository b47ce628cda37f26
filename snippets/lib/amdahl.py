"""Amdahl's law for kernel work inside a service (lesson: Connect kernel work
to the service). Every number the page states is computed here."""

# --8<-- [start:overall-speedup]
import math


def check_fraction(kernel_fraction: float) -> None:
    if not 0.0 <= kernel_fraction <= 1.0:
        raise ValueError(f"kernel_fraction must lie in [0, 1], got {kernel_fraction}")


def overall_speedup(kernel_fraction: float, kernel_speedup: float) -> float:
    """Whole-workload speedup when only the kernel gets faster.

    Split the original time T into the kernel's share f*T and the rest
    (1 - f)*T. Only the kernel's share shrinks, by kernel_speedup:
        T_new = (1 - f)*T + f*T / kernel_speedup
    and the overall speedup is T / T_new.
    """
    check_fraction(kernel_fraction)
    if kernel_speedup <= 0:
        raise ValueError(f"kernel_speedup must be positive, got {kernel_speedup}")
    rest = 1.0 - kernel_fraction
    return 1.0 / (rest + kernel_fraction / kernel_speedup)


def speedup_cap(kernel_fraction: float) -> float:
    """The limit as the kernel becomes instantaneous: 1 / (1 - f)."""
    check_fraction(kernel_fraction)
    if kernel_fraction == 1.0:
        return math.inf
    return 1.0 / (1.0 - kernel_fraction)


# --8<-- [end:overall-speedup]


# --8<-- [start:required-speedup]
def required_kernel_speedup(kernel_fraction: float, target: float) -> float:
    """Kernel speedup needed for a target overall speedup.

    Solving target = 1 / ((1 - f) + f / s) for s gives
        s = f / (1 / target - (1 - f)).
    At or beyond the cap there is no finite answer: returns math.inf.
    """
    check_fraction(kernel_fraction)
    if target < 1.0:
        raise ValueError(f"target must be at least 1, got {target}")
    room = 1.0 / target - (1.0 - kernel_fraction)
    if room <= 0.0:
        return math.inf
    return kernel_fraction / room


# --8<-- [end:required-speedup]


# --8<-- [start:headroom]
def remaining_headroom(kernel_fraction: float, kernel_speedup_now: float) -> float:
    """How much faster the whole workload could still get, at most, if the
    kernel (already kernel_speedup_now times faster) became instantaneous."""
    now = overall_speedup(kernel_fraction, kernel_speedup_now)
    return speedup_cap(kernel_fraction) / now


# --8<-- [end:headroom]


# The table on the page: rows are the kernel's share of the original time,
# columns how much faster the kernel gets.
TABLE_FRACTIONS = (0.05, 0.10, 0.20, 0.50, 0.80, 0.95)
TABLE_SPEEDUPS = (1.5, 2.0, 5.0, 10.0, math.inf)

# The lesson's running example and exercise.
EXAMPLE_FRACTION = 0.20
EXERCISE_STEP_MS = 40.0
EXERCISE_KERNEL_MS = 12.0
EXERCISE_KERNEL_SPEEDUP = 3.0
EXERCISE_TARGET = 1.3


def fmt_x(value: float, digits: int = 2) -> str:
    """A speedup as text: 1.25×, or ∞ for an unbounded one."""
    return "∞" if math.isinf(value) else f"{value:.{digits}f}×"


def fmt_pct(fraction: float) -> str:
    return f"{fraction * 100:.0f}%"


def speedup_table() -> str:
    """Markdown table of overall speedup against kernel share and speedup."""
    header = ["kernel share of time"] + [
        "instantaneous kernel" if math.isinf(s) else f"kernel {fmt_x(s, 1)}"
        for s in TABLE_SPEEDUPS
    ]
    rows = [
        [fmt_pct(f)] + [fmt_x(overall_speedup(f, s)) for s in TABLE_SPEEDUPS]
        for f in TABLE_FRACTIONS
    ]
    from evidence.tables import markdown_table

    return markdown_table(header, rows) + "\n"


def fmt_cap(kernel_fraction: float) -> str:
    return fmt_x(speedup_cap(kernel_fraction))


def fmt_cap_formula(kernel_fraction: float) -> str:
    """'1 / (1 − 0.2) = 1.25×' for the page's opening example."""
    rest = 1.0 - kernel_fraction
    return f"1 / (1 − {kernel_fraction:g}) = 1 / {rest:g} = {fmt_cap(kernel_fraction)}"


def pct_value(fraction: float) -> str:
    return fmt_pct(fraction)


def fmt_overall(kernel_fraction: float, kernel_speedup: float) -> str:
    return fmt_x(overall_speedup(kernel_fraction, kernel_speedup))


def fmt_required(kernel_fraction: float, target: float) -> str:
    return fmt_x(required_kernel_speedup(kernel_fraction, target))


def fmt_headroom(kernel_fraction: float, kernel_speedup_now: float) -> str:
    return fmt_x(remaining_headroom(kernel_fraction, kernel_speedup_now))


def exercise() -> dict[str, float]:
    """The exercise's givens and its answers, all derived here."""
    f = EXERCISE_KERNEL_MS / EXERCISE_STEP_MS
    new_step = (
        EXERCISE_STEP_MS
        - EXERCISE_KERNEL_MS
        + EXERCISE_KERNEL_MS / EXERCISE_KERNEL_SPEEDUP
    )
    return {
        "step_ms": EXERCISE_STEP_MS,
        "kernel_ms": EXERCISE_KERNEL_MS,
        "fraction": f,
        "cap": speedup_cap(f),
        "kernel_speedup": EXERCISE_KERNEL_SPEEDUP,
        "new_step_ms": new_step,
        "overall": overall_speedup(f, EXERCISE_KERNEL_SPEEDUP),
        "target": EXERCISE_TARGET,
        "required": required_kernel_speedup(f, EXERCISE_TARGET),
    }


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "cap-formula.0.2": fmt_cap_formula(0.2),
        "headroom.0.2.5.0": fmt_headroom(0.2, 5.0),
        "overall.0.2.10.0": fmt_overall(0.2, 10.0),
        "overall.0.2.2.0": fmt_overall(0.2, 2.0),
        "overall.0.8.10.0": fmt_overall(0.8, 10.0),
        "pct.0.2": pct_value(0.2),
        "pct.0.5": pct_value(0.5),
        "pct.0.8": pct_value(0.8),
        "required.0.5.1.5": fmt_required(0.5, 1.5),
        "required.0.5.2.0": fmt_required(0.5, 2.0),
    }


def facts() -> dict[str, str]:
    """Every value the pages state by name, formatted for prose; a page reads
    one as ``<!-- fact: snippets/lib/amdahl.py:exercise.cap -->``."""
    out = {
        **page_facts(),
    }
    for field, value in exercise().items():
        if field in ("cap", "overall", "required"):
            text = fmt_x(value, 2)
        elif field in ("target", "kernel_speedup"):
            text = fmt_x(value, 1)
        elif field == "fraction":
            text = fmt_pct(value)
        else:
            text = f"{value:g} ms"
        out[f"exercise.{field}"] = text
    return out


if __name__ == "__main__":
    # The lesson's worked examples; the exercise's answers stay in its folds.
    print("cap for a kernel at 20%:", fmt_cap_formula(EXAMPLE_FRACTION))
    print("kernel at 20%, 2x faster:", fmt_overall(EXAMPLE_FRACTION, 2.0), "overall")
    print("kernel at 50%, 1.5x overall needs:", fmt_required(0.5, 1.5), "kernel")
