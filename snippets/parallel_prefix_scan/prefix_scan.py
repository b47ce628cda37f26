"""Parallel prefix scans as step-by-step Python models.

Shown on docs/reference/parallel-prefix-scan.md. Each parallel step is
modelled as one list comprehension (or one loop whose iterations touch
disjoint elements) that reads only the array as it stood before the step,
which is what a barrier between steps gives a real block. CPU models: they
show which element combines with which at each step, not how fast a device
runs them.
"""

from __future__ import annotations

from evidence.tables import markdown_table

VALUES = [3, 0, 2, 1, 0, 4]
LONG_VALUES = [3, 0, 2, 1, 0, 4, 2, 5, 1, 3]
BLOCK_SIZE = 4


# --8<-- [start:sequential]
def inclusive_scan(values: list[int]) -> list[int]:
    """out[i] = values[0] + ... + values[i]."""
    out, running = [], 0
    for value in values:
        running += value
        out.append(running)
    return out


def exclusive_scan(values: list[int]) -> list[int]:
    """out[i] = values[0] + ... + values[i - 1]; out[0] is 0."""
    return [0] + inclusive_scan(values)[:-1] if values else []
    # --8<-- [end:sequential]


# --8<-- [start:hillis-steele]
def hillis_steele_steps(values: list[int]) -> list[tuple[int, list[int]]]:
    """Inclusive scan in ceil(log2 n) steps. At the step with distance d,
    every element i >= d adds the element d places before it. Returns
    (d, array after the step) for every step, starting with (0, input)."""
    steps = [(0, list(values))]
    d = 1
    while d < len(values):
        old = steps[-1][1]  # double buffer: read only the old array
        after = [x + old[i - d] if i >= d else x for i, x in enumerate(old)]
        steps.append((d, after))
        d *= 2
    return steps
    # --8<-- [end:hillis-steele]


# --8<-- [start:blelloch]
def blelloch_steps(values: list[int]) -> list[tuple[str, list[int]]]:
    """Exclusive scan in two sweeps over a balanced tree (Blelloch 1990).
    The input is padded with zeros to a power of two. Returns (label,
    array) after the padding and after every step of each sweep."""
    n = 1
    while n < len(values):
        n *= 2
    tree = list(values) + [0] * (n - len(values))
    steps = [("input, padded", list(tree))]
    d = 1
    while d < n:  # up-sweep: each right child becomes its subtree's sum
        for right in range(2 * d - 1, n, 2 * d):
            tree[right] += tree[right - d]
        steps.append((f"up-sweep, d = {d}", list(tree)))
        d *= 2
    tree[n - 1] = 0  # the root's prefix: nothing comes before it
    steps.append(("clear the root", list(tree)))
    d = n // 2
    while d >= 1:  # down-sweep: pass each prefix down the tree
        for right in range(2 * d - 1, n, 2 * d):
            left = right - d
            tree[left], tree[right] = tree[right], tree[right] + tree[left]
        steps.append((f"down-sweep, d = {d}", list(tree)))
        d //= 2
    return steps
    # --8<-- [end:blelloch]


def hillis_steele_adds(n: int) -> int:
    """Additions Hillis-Steele performs on n elements: about n log2 n."""
    total, d = 0, 1
    while d < n:
        total += n - d
        d *= 2
    return total


def blelloch_adds(n: int) -> int:
    """Additions Blelloch performs, after padding n to a power of two:
    n - 1 on the way up and n - 1 on the way down."""
    padded = 1
    while padded < n:
        padded *= 2
    return 2 * (padded - 1)


# --8<-- [start:reduce-then-scan]
def reduce_then_scan(values: list[int], block_size: int) -> dict[str, list]:
    """Inclusive scan across blocks in three phases, every array kept."""
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    starts = range(0, len(values), block_size)
    blocks = [values[start : start + block_size] for start in starts]
    totals = [sum(block) for block in blocks]  # phase 1: reduce each block
    carries = exclusive_scan(totals)  # phase 2: scan the block totals
    local = [inclusive_scan(block) for block in blocks]  # phase 3: scan,
    result = []  # ... then add each block's carry
    for carry, scan in zip(carries, local, strict=True):
        result += [carry + x for x in scan]
    return {
        "blocks": blocks,
        "totals": totals,
        "carries": carries,
        "local": local,
        "result": result,
    }
    # --8<-- [end:reduce-then-scan]


# Build-time helpers for the page: each returns Markdown.


def _code(value: object) -> str:
    return f"`{value}`"


def scans_table(values: list[int] = VALUES) -> str:
    rows = [
        ("input", _code(values)),
        ("inclusive scan", _code(inclusive_scan(values))),
        ("exclusive scan", _code(exclusive_scan(values))),
    ]
    return markdown_table(["", "array"], rows, escape=False)


def hillis_steele_table(values: list[int] = VALUES) -> str:
    rows = [
        (k, d or "(input)", _code(array))
        for k, (d, array) in enumerate(hillis_steele_steps(values))
    ]
    header = ["step", "distance d", "array after the step"]
    return markdown_table(header, rows, "rrl", escape=False)


def blelloch_table(values: list[int] = VALUES) -> str:
    rows = [(label, _code(array)) for label, array in blelloch_steps(values)]
    header = ["step", "array after the step"]
    return markdown_table(header, rows, escape=False)


def adds_table(sizes: tuple[int, ...] = (6, 1024, 1 << 20)) -> str:
    rows = [(n, max(n - 1, 0), hillis_steele_adds(n), blelloch_adds(n)) for n in sizes]
    header = ["n", "sequential", "Hillis-Steele", "Blelloch"]
    return markdown_table(header, rows, "rrrr")


def reduce_then_scan_table(
    values: list[int] = LONG_VALUES, block_size: int = BLOCK_SIZE
) -> str:
    phases = reduce_then_scan(values, block_size)
    stored = (
        "2, as `kernels/scan/` stores it: inclusive scan of the totals "
        "(block b reads entry b - 1)"
    )
    rows = [
        (f"input, in blocks of {block_size}", _code(phases["blocks"])),
        ("1: each block's total", _code(phases["totals"])),
        ("2: exclusive scan of the totals (carries)", _code(phases["carries"])),
        (stored, _code(inclusive_scan(phases["totals"]))),
        ("3: each block's inclusive scan", _code(phases["local"])),
        ("3: plus the block's carry", _code(phases["result"])),
        ("check: sequential inclusive scan", _code(inclusive_scan(values))),
    ]
    return markdown_table(["phase", "array"], rows, escape=False)


def steps_count(algorithm: str, values: list[int] = VALUES) -> str:
    """How many parallel steps the model took, for the page's prose."""
    if algorithm == "hillis-steele":
        return str(len(hillis_steele_steps(values)) - 1)
    if algorithm == "blelloch":  # sweep steps; clearing the root is not one
        labels = [label for label, _ in blelloch_steps(values)]
        return str(sum("sweep" in label for label in labels))
    raise KeyError(
        f"algorithm must be 'hillis-steele' or 'blelloch', got {algorithm!r}"
    )


def fmt_exclusive(sizes: list[int]) -> str:
    """'program 0 at 0, program 1 at 2, ...; 10 values in all'."""
    starts = exclusive_scan(sizes)
    where = ", ".join(f"program {i} at {start}" for i, start in enumerate(starts))
    return f"{where}; {sum(sizes)} values in all"


#: The exercise's length: additions of each scan for this many values.
ADDS_N = 1024


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "exclusive.sizes": fmt_exclusive([2, 0, 3, 1, 4]),
        "adds.hillis-steele": f"{hillis_steele_adds(ADDS_N):,}",
        "adds.blelloch": f"{blelloch_adds(ADDS_N):,}",
        "adds.sequential": f"{ADDS_N - 1:,}",
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    print("input:          ", VALUES)
    print("inclusive scan: ", inclusive_scan(VALUES))
    print("exclusive scan: ", exclusive_scan(VALUES))
    print("Hillis-Steele:  ", hillis_steele_steps(VALUES)[-1][1], end=" ")
    print(f"in {steps_count('hillis-steele')} steps")
    print("Blelloch:       ", blelloch_steps(VALUES)[-1][1], end=" ")
    print(f"in {steps_count('blelloch')} sweep steps (exclusive, padded)")
    n = 1 << 20
    print(f"additions for n = {n}: Hillis-Steele {hillis_steele_adds(n)},", end=" ")
    print(f"Blelloch {blelloch_adds(n)}")
    parts = reduce_then_scan(LONG_VALUES, BLOCK_SIZE)
    for key, value in parts.items():
        print(f"reduce-then-scan {key}: {value}")
