"""How many times each element crosses memory: eager against fused."""

from __future__ import annotations


# --8<-- [start:passes]
def passes(fused: bool) -> int:
    """Element-sized memory passes for relu(x + residual).

    Eager runs two kernels: the add reads x and residual and writes a
    temporary; the ReLU reads the temporary and writes the output. A fused
    kernel reads the two inputs once and writes the output once."""
    add = 2 + 1  # read x, read residual, write the temporary
    relu = 1 + 1  # read the temporary, write the output
    return 2 + 1 if fused else add + relu


def fusion_ceiling() -> float:
    """The most fusion can save when both versions run at the same
    bandwidth: the ratio of the bytes they move."""
    return passes(fused=False) / passes(fused=True)


# --8<-- [end:passes]


def fmt_passes(fused: bool) -> str:
    return f"{passes(fused)}N"


def fmt_ceiling() -> str:
    return f"{fusion_ceiling():.2f}×"


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "ceiling": fmt_ceiling(),
        "passes.false": fmt_passes(False),
        "passes.true": fmt_passes(True),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    print(f"eager: {fmt_passes(False)} element passes, fused: {fmt_passes(True)}")
    print(f"fusion can save at most {fmt_ceiling()} at equal bandwidth")
