"""``triton.language`` for the page: the subset the on-ramp and the practice
track use (``blocks.py``: the block type and elementwise operations;
``blockops.py``: memory, reductions, dot). Any other name is refused by name
(:class:`OutsideSubset`), never computed some other way.
"""

from __future__ import annotations

from scripts.practice_web.blockops import (  # noqa: F401  (tl's names)
    atomic_add,
    cumsum,
    dot,
    load,
    max,
    min,
    reshape,
    store,
    sum,
    trans,
)
from scripts.practice_web.blocks import (  # noqa: F401  (tl's names)
    OutsideSubset,
    abs,
    arange,
    cdiv,
    constexpr,
    exp,
    exp2,
    float16,
    float32,
    float64,
    full,
    int1,
    int8,
    int16,
    int32,
    int64,
    log,
    max_contiguous,
    maximum,
    minimum,
    multiple_of,
    num_programs,
    program_id,
    sqrt,
    sqrt_rn,
    static_assert,
    static_range,
    uint8,
    where,
    zeros,
)

SUBSET = frozenset(n for n in dir() if not n.startswith("_")) - {
    "OutsideSubset",
    "annotations",
}


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise OutsideSubset(f"tl.{name}")
