"""Softmax state merging: the (running max, running sum) of online softmax.

Shown on docs/projects/work-mapping.md. After Milakov and Gimelshein,
"Online normalizer calculation for softmax" (arXiv 1805.02867): a block of
scores is summarised by m, its maximum, and s, the sum of exp(x - m) over
the block. Two summaries merge without revisiting the scores, so blocks can
be processed by different programs in any order and grouping. A CPU model
in float64: it checks the algebra, not a kernel's numerics or speed.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from evidence.tables import markdown_table

SCORES = [1.0, 3.0, -2.0, 0.5, 4.0, 2.0, -1.0]
BLOCK_SIZE = 3


# --8<-- [start:state]
@dataclass(frozen=True)
class SoftmaxState:
    max: float  # largest score seen so far
    sum: float  # sum of exp(score - max) over the scores seen so far


EMPTY = SoftmaxState(-math.inf, 0.0)  # merging with it changes nothing


def merge(a: SoftmaxState, b: SoftmaxState) -> SoftmaxState:
    """Rescale both sums to the larger max, then add them."""
    new_max = max(a.max, b.max)
    if new_max == -math.inf:  # both empty: avoid exp(-inf - -inf) = nan
        return EMPTY
    return SoftmaxState(
        new_max,
        a.sum * math.exp(a.max - new_max) + b.sum * math.exp(b.max - new_max),
    )


def running_states(scores: list[float]) -> list[SoftmaxState]:
    """Online softmax: fold the scores in one at a time."""
    states, state = [], EMPTY
    for score in scores:
        state = merge(state, SoftmaxState(score, 1.0))
        states.append(state)
    return states


def softmax_from_state(scores: list[float], state: SoftmaxState) -> list[float]:
    return [math.exp(score - state.max) / state.sum for score in scores]
    # --8<-- [end:state]


# --8<-- [start:broken-merge]
def merge_without_rescaling(a: SoftmaxState, b: SoftmaxState) -> SoftmaxState:
    """Deliberately broken: adds sums taken against different maxima."""
    return SoftmaxState(max(a.max, b.max), a.sum + b.sum)
    # --8<-- [end:broken-merge]


def block_states(scores: list[float], block_size: int) -> list[SoftmaxState]:
    """The final running state of each block of `block_size` scores."""
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    if not scores:
        raise ValueError("scores must not be empty: softmax of nothing")
    return [
        running_states(scores[i : i + block_size])[-1]
        for i in range(0, len(scores), block_size)
    ]


def groupings(states: list[SoftmaxState], merge_fn=merge) -> list[SoftmaxState]:
    """The merged state for every order and every bracketing of `states`."""

    def bracketings(seq: tuple[SoftmaxState, ...]) -> list[SoftmaxState]:
        if len(seq) == 1:
            return [seq[0]]
        return [
            merge_fn(left, right)
            for cut in range(1, len(seq))
            for left in bracketings(seq[:cut])
            for right in bracketings(seq[cut:])
        ]

    return [
        merged
        for order in itertools.permutations(states)
        for merged in bracketings(order)
    ]


def reference_softmax(scores: list[float]) -> list[float]:
    """Two passes over the scores: max first, then the sum."""
    top = max(scores)
    total = sum(math.exp(score - top) for score in scores)
    return [math.exp(score - top) / total for score in scores]


# Build-time helpers for the page: each returns Markdown.


def _fmt(x: float) -> str:
    return "-inf" if x == -math.inf else f"{x:.4f}"


def running_table(scores: list[float] = SCORES) -> str:
    """The running max and running sum after each score."""
    header = ["after score", "score", "running max", "running sum"]
    states = running_states(scores)
    rows = [
        (k, _fmt(score), _fmt(state.max), _fmt(state.sum))
        for k, (score, state) in enumerate(zip(scores, states, strict=True))
    ]
    return markdown_table(header, rows, "rrrr")


def blocks_table(scores: list[float] = SCORES, block_size: int = BLOCK_SIZE) -> str:
    """Each block's scores and its (max, sum) state."""
    rows = []
    for b, state in enumerate(block_states(scores, block_size)):
        chunk = scores[b * block_size : (b + 1) * block_size]
        rows.append((b, f"`{chunk}`", _fmt(state.max), _fmt(state.sum)))
    return markdown_table(["block", "scores", "max", "sum"], rows, "rlrr", escape=False)


def merge_summary(scores: list[float] = SCORES, block_size: int = BLOCK_SIZE) -> str:
    """How many groupings were merged, the spread of their results, and
    the broken merge's results, against the one-pass state."""
    states = block_states(scores, block_size)
    full = running_states(scores)[-1]
    good = groupings(states)
    bad = groupings(states, merge_without_rescaling)
    spread = max(abs(s.sum - full.sum) / full.sum for s in good)

    def total(state: SoftmaxState) -> str:
        return _fmt(sum(softmax_from_state(scores, state)))

    bad_sums = sorted({_fmt(s.sum) for s in bad})
    bad_totals = sorted({total(s) for s in bad})
    rows = [
        (
            f"one pass over all {len(scores)} scores",
            _fmt(full.max),
            _fmt(full.sum),
            total(full),
        ),
        (
            f"`merge`, all {len(good)} orders and groupings",
            _fmt(max(s.max for s in good)),
            f"{_fmt(full.sum)} (largest relative difference {spread:.1e})",
            total(good[0]),
        ),
        (
            "`merge_without_rescaling`, same groupings",
            _fmt(max(s.max for s in bad)),
            ", ".join(bad_sums),
            ", ".join(bad_totals),
        ),
    ]
    header = ["", "max", "sum", "probabilities add up to"]
    return markdown_table(header, rows, "lrlr", escape=False)


def softmax_row(scores: list[float] = SCORES, block_size: int = BLOCK_SIZE) -> str:
    """The softmax from the merged state beside the two-pass reference."""
    merged = EMPTY
    for state in block_states(scores, block_size):
        merged = merge(merged, state)
    ours = softmax_from_state(scores, merged)
    ref = reference_softmax(scores)
    header = ["k", "score", "softmax from merged blocks", "two-pass reference"]
    rows = [
        [k, *(_fmt(v) for v in values)]
        for k, values in enumerate(zip(scores, ours, ref, strict=True))
    ]
    return markdown_table(header, rows, "rrrr")


if __name__ == "__main__":
    print(running_table(), end="\n\n")
    print(blocks_table(), end="\n\n")
    print(merge_summary(), end="\n\n")
    print(softmax_row())
