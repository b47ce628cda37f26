"""Online softmax: a running max and sum, proved by code, merged by blocks.

Shown on docs/kernels/attention/online-softmax.md. A CPU model in float64
(Milakov and Gimelshein, "Online normalizer calculation for softmax",
2018): it checks the algebra and counts passes and bytes; it says nothing
about a kernel's rounding or speed. Merging uses the work-mapping
project's model, snippets/lib/softmax_merge.py.
"""

from __future__ import annotations

# --8<-- [start:imports]
import math

# --8<-- [end:imports]
from evidence.tables import markdown_table
from kernels.devices import H200
from snippets.lib.softmax_merge import (
    EMPTY,
    SCORES,
    SoftmaxState,
    block_states,
    groupings,
    merge,
)

FLOAT32_MAX = (2 - 2**-23) * 2**127
WORKED = {"rows": 2048, "cols": 65536, "itemsize": 2}  # the 65k-wide bench rows


# --8<-- [start:three-pass]
def softmax_three_pass(scores: list[float]) -> list[float]:
    """The safe softmax: one pass for the max, one for the sum, one to
    normalize. Subtracting the max keeps every exp at most 1."""
    top = max(scores)  # pass 1
    total = sum(math.exp(x - top) for x in scores)  # pass 2
    return [math.exp(x - top) / total for x in scores]  # pass 3
    # --8<-- [end:three-pass]


# --8<-- [start:online]
def online_normalizer(scores: list[float]) -> tuple[float, float]:
    """One pass: the running max m and running sum d of exp(x - m).
    When the max grows, the sum so far was taken against the old max,
    so it is multiplied by exp(old m - new m) before the new term is added."""
    m, d = -math.inf, 0.0
    for x in scores:
        new_m = max(m, x)
        shift = 0.0 if new_m == -math.inf else new_m  # -inf - -inf is NaN
        d = d * math.exp(m - shift) + math.exp(x - shift)
        m = new_m
    return m, d


def softmax_online(scores: list[float]) -> list[float]:
    """Two passes: the normalizer, then the outputs."""
    m, d = online_normalizer(scores)  # pass 1
    return [math.exp(x - m) / d for x in scores]  # pass 2
    # --8<-- [end:online]


# --8<-- [start:invariant]
def invariant_gaps(scores: list[float]) -> list[float]:
    """After every step k the claim is d_k = sum_{j<=k} exp(x_j - m_k).
    Returns, per step, the relative gap between the running d and that sum
    recomputed from scratch: the proof by induction, checked numerically.
    Step: d_k = d_{k-1} exp(m_{k-1} - m_k) + exp(x_k - m_k)
              = sum_{j<k} exp(x_j - m_{k-1}) exp(m_{k-1} - m_k) + exp(x_k - m_k)
              = sum_{j<=k} exp(x_j - m_k)."""
    gaps, m, d = [], -math.inf, 0.0
    for k, x in enumerate(scores):
        new_m = max(m, x)
        shift = 0.0 if new_m == -math.inf else new_m
        d = d * math.exp(m - shift) + math.exp(x - shift)
        m = new_m
        direct = sum(math.exp(xj - shift) for xj in scores[: k + 1])
        gaps.append(abs(d - direct) / direct if direct else abs(d))
    return gaps
    # --8<-- [end:invariant]


# --8<-- [start:one-exp]
def online_normalizer_one_exp(scores: list[float]) -> tuple[float, float]:
    """softmax_v4_kernel's update: one exponential per score. With
    e = exp(-|x - m|): if x raises the max, e = exp(m - x) is the rescale
    of the old sum and the new term is exp(0) = 1; otherwise e = exp(x - m)
    is the new term and the sum needs no rescale."""
    m, d = -math.inf, 0.0
    for x in scores:
        base = 0.0 if m == -math.inf else m  # an empty state has d = 0
        e = math.exp(-abs(x - base))
        if x > m:
            d, m = d * e + 1.0, x
        else:
            d = d + e
    return m, d
    # --8<-- [end:one-exp]


# --8<-- [start:merge-blocks]
def merged_state(scores: list[float], block_size: int) -> SoftmaxState:
    """Each block folds its own scores; the states then merge in a tree,
    as programs (or the lanes of one program) would combine them."""
    states = block_states(scores, block_size)
    while len(states) > 1:  # one level of a pairwise tree per round
        pairs = zip(states[0::2], states[1::2] + [EMPTY], strict=False)
        states = [merge(a, b) for a, b in pairs]
    return states[0]


def lane_states(scores: list[float], lanes: int) -> list[SoftmaxState]:
    """softmax_v2_kernel's first pass: lane i sees columns i, i + lanes, ...
    and keeps its own state, so the loop needs no cross-lane reduction."""
    out = []
    for lane in range(lanes):
        state = EMPTY
        for x in scores[lane::lanes]:
            state = merge(state, SoftmaxState(x, 1.0))
        out.append(state)
    return out
    # --8<-- [end:merge-blocks]


# --8<-- [start:passes]
def bytes_per_row(cols: int, itemsize: int, reads: int) -> int:
    """A row is read `reads` times and its result written once."""
    return (reads + 1) * cols * itemsize


VERSIONS = {  # how many times each method reads a row that is not on chip
    "three-pass safe softmax": 3,
    "online, two passes (softmax_v2)": 2,
    "row held on chip (softmax_v1)": 1,
}
# --8<-- [end:passes]


def passes_table(
    rows: int = WORKED["rows"], cols: int = WORKED["cols"], itemsize: int = 2
) -> str:
    """Markdown: bytes per method for `rows` rows of `cols` columns."""
    least = rows * bytes_per_row(cols, itemsize, 1)
    out = []
    for name, reads in VERSIONS.items():
        total = rows * bytes_per_row(cols, itemsize, reads)
        out.append((name, reads, f"{total / 2**20:,.0f} MiB", f"{total / least:.2f}×"))
    header = ["method", "reads of the row", "bytes moved", "of the least traffic"]
    return markdown_table(header, out, "lrrr")


# --8<-- [start:exp-demand]
def exp_share(reads: int, exps_per_element: int, itemsize: int = 2) -> float:
    """The share of the special-function unit's exp2 rate a softmax needs
    to keep up with HBM: elements per second at full bandwidth (each read
    `reads` times and written once) times its exponentials per element."""
    elements_per_s = H200.hbm_bytes_per_s / bytes_per_row(1, itemsize, reads)
    return elements_per_s * exps_per_element / H200.exp2_per_s
    # --8<-- [end:exp-demand]


def facts() -> dict[str, str]:
    """Numbers the page states about the worked example; a page reads one
    as ``<!-- fact: snippets/online_softmax/online.py:row-bytes -->``."""
    rows, cols, itemsize = WORKED["rows"], WORKED["cols"], WORKED["itemsize"]
    three = bytes_per_row(cols, itemsize, 3)
    two = bytes_per_row(cols, itemsize, 2)
    return {
        "shape": f"{rows:,} rows of {cols:,} bf16 values",
        "row-bytes": f"{cols * itemsize // 1024} KiB",
        # exp(x) passes float32's largest finite value
        "overflow": f"about {math.log(FLOAT32_MAX):.1f}",
        "saving": f"{1 - two / three:.0%}",
        "exp-share.v2": f"{exp_share(2, 3):.0%}",
        "exp-share.v4": f"{exp_share(2, 2):.0%}",
        "exp-rate": f"{H200.exp2_per_s / 1e12:.2g}×10¹² per second",
        **whole_row_facts(),
        **merge_facts(),
        **exercise_facts(),
    }


def whole_row_facts() -> dict[str, str]:
    """What the compiler made of a whole 65K bf16 row in one block (two
    sm_90a builds of softmax_v1_kernel that no launcher runs): registers a
    thread, the budget at 1,024 threads, and bytes spilled."""
    from evidence.artifacts import build, spills
    from kernels.devices import TARGETS

    hopper = TARGETS["sm_90a"]
    wide = build("softmax", "v1-bf16-65536")
    widest = build("softmax", "v1-bf16-65536-32-warps")
    cols = wide["shape"]["cols"]
    return {
        "whole-row.cols": f"{cols:,}",
        "whole-row.float32-kib": f"{cols * 4 // 1024}",
        "whole-row.budget": str(hopper.registers_per_sm // hopper.threads_per_block),
        "whole-row.values-per-thread": str(cols // (32 * widest["num_warps"])),
        "whole-row.16.warps": str(wide["num_warps"]),
        "whole-row.16.registers": str(wide["registers"]),
        "whole-row.16.spills": f"{spills(wide):,}",
        "whole-row.32.warps": str(widest["num_warps"]),
        "whole-row.32.registers": str(widest["registers"]),
        "whole-row.32.spills": f"{spills(widest):,}",
    }


def _fmt(x: float) -> str:
    return "-inf" if x == -math.inf else f"{x:.4f}"


def invariant_table(scores: list[float] = SCORES) -> str:
    """Markdown: each step's running max, rescale factor, running sum and
    the gap to the sum recomputed from scratch."""
    rows, m, d = [], -math.inf, 0.0
    gaps = invariant_gaps(scores)
    for k, x in enumerate(scores):
        new_m = max(m, x)
        factor = math.exp(m - new_m)
        d = d * factor + math.exp(x - new_m)
        m = new_m
        rows.append((k, _fmt(x), _fmt(m), _fmt(factor), _fmt(d), f"{gaps[k]:.0e}"))
    header = ["step", "score", "running max", "rescale by", "running sum", "gap"]
    return markdown_table(header, rows, "rrrrrr")


def merge_facts(scores: list[float] = SCORES, block_size: int = 3) -> dict:
    """The merged state against the one-pass state, and the exp2 count of
    each softmax build (from the artifact)."""
    from snippets.lib.hopper_artifacts import build_names, fact

    m, d = online_normalizer(scores)
    tree = merged_state(scores, block_size)
    orders = groupings(block_states(scores, block_size))
    spread = max(abs(s.sum - d) / d for s in orders)
    return {
        "merge.max": f"{m:g}",
        "merge.sum": f"{d:.6f}",
        "merge.block": f"{block_size}",
        "merge.tree-max": f"{tree.max:g}",
        "merge.tree-sum": f"{tree.sum:.6f}",
        "merge.orders": f"{len(orders)}",
        "merge.spread": f"{spread:.0e}",
        "exp-counts": ", ".join(
            f"`{n}` {fact('softmax', n, 'MUFU.EX2')}" for n in build_names("softmax")
        ),
    }


# --8<-- [start:exercise]
def exercise_answer(scores: list[float], block_size: int) -> dict:
    """Each block's (max, sum), the merged state, and the softmax."""
    states = block_states(scores, block_size)
    total = EMPTY
    for state in states:
        total = merge(total, state)
    probs = [math.exp(x - total.max) / total.sum for x in scores]
    return {"blocks": states, "merged": total, "softmax": probs}
    # --8<-- [end:exercise]


EXERCISE = ([2.0, -1.0, 5.0, 0.0], 2)


#: Exercise 2's sizes: float32 rows too wide to keep on chip.
BYTES_EXERCISE = {"rows": 4096, "cols": 32768, "itemsize": 4}


def exercise_facts() -> dict[str, str]:
    """Both exercises' sizes and answers, formatted."""
    scores, block_size = EXERCISE
    answer = exercise_answer(scores, block_size)
    out = {"exercise.scores": f"`{scores}`", "exercise.block": f"{block_size}"}
    for i, state in enumerate(answer["blocks"]):
        out[f"exercise.block{i}.max"] = f"{state.max:g}"
        out[f"exercise.block{i}.sum"] = f"{state.sum:.4f}"
    out["exercise.merged.max"] = f"{answer['merged'].max:g}"
    out["exercise.merged.sum"] = f"{answer['merged'].sum:.4f}"
    out["exercise.softmax"] = ", ".join(f"{p:.4f}" for p in answer["softmax"])
    rows, cols, itemsize = BYTES_EXERCISE.values()
    three = rows * bytes_per_row(cols, itemsize, 3)
    two = rows * bytes_per_row(cols, itemsize, 2)
    out.update({
        "bytes.rows": f"{rows:,}",
        "bytes.cols": f"{cols:,}",
        "bytes.three": f"{three / 2**20:,.0f} MiB",
        "bytes.two": f"{two / 2**20:,.0f} MiB",
        "bytes.saved": f"{three - two:,}",
        "bytes.saved-mib": f"{(three - two) / 2**20:,.0f} MiB",
    })  # fmt: skip
    return out


def merge_figure(scores: list[float] = SCORES, block_size: int = 3):
    """Blocks of scores, each summarised by (max, sum), merged pairwise
    into one state; the merge rescales each sum to the larger max."""
    from snippets.lib.diagrams import ACCENT, INK, MUTED, figure

    states = block_states(scores, block_size)
    fig = figure(6.5, 3.0)
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.96))
    ax.set_axis_off()
    ax.set_xlim(0, len(scores))
    ax.set_ylim(0, 3.2)
    for k, x in enumerate(scores):  # the scores, one cell each
        ax.add_patch(_box((k + 0.05, 2.5), 0.9, 0.5, MUTED))
        ax.text(k + 0.5, 2.75, f"{x:g}", ha="center", va="center", color=INK)
    centres = []
    for b, state in enumerate(states):  # one state per block
        start = b * block_size
        width = min(block_size, len(scores) - start)
        centre = start + width / 2
        centres.append(centre)
        ax.add_patch(_box((start + 0.1, 1.45), width - 0.2, 0.65, ACCENT))
        ax.text(
            centre,
            1.78,
            f"m={state.max:g}\ns={state.sum:.3f}",
            ha="center",
            va="center",
            color=INK,
        )
        ax.annotate(
            "",
            (centre, 2.1),
            (centre, 2.5),
            arrowprops={"color": INK, "arrowstyle": "<-"},
        )
    total = merged_state(scores, block_size)
    middle = len(scores) / 2
    ax.add_patch(_box((middle - 1.6, 0.1), 3.2, 0.7, ACCENT))
    ax.text(
        middle,
        0.45,
        f"merged: m={total.max:g}, s={total.sum:.3f}",
        ha="center",
        va="center",
        color=INK,
    )
    for centre in centres:
        ax.annotate(
            "",
            (middle, 0.8),
            (centre, 1.45),
            arrowprops={"color": INK, "arrowstyle": "->"},
        )
    return fig


def _box(xy, width, height, colour):
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import INK

    return Rectangle(xy, width, height, facecolor=colour, alpha=0.5, edgecolor=INK)


if __name__ == "__main__":
    m, d = online_normalizer(SCORES)
    print(f"scores {SCORES}")
    print(f"online normalizer: max {m:g}, sum {d:.6f}")
    worst = max(invariant_gaps(SCORES))
    print(f"largest gap between running sum and recomputed sum: {worst:.1e}")
    same = max(
        abs(a - b)
        for a, b in zip(softmax_online(SCORES), softmax_three_pass(SCORES), strict=True)
    )
    print(f"online against three-pass softmax: largest difference {same:.1e}")
    f = merge_facts()
    print(
        f"one pass gives max {f['merge.max']} and sum {f['merge.sum']}; the "
        f"pairwise tree over blocks of {f['merge.block']} gives max "
        f"{f['merge.tree-max']} and sum {f['merge.tree-sum']}; all "
        f"{f['merge.orders']} orders and groupings of the blocks agree to "
        f"{f['merge.spread']}"
    )
    lanes = lane_states(SCORES, 4)
    lane_total = EMPTY
    for state in lanes:
        lane_total = merge(lane_total, state)
    print(f"4 lanes merged: max {lane_total.max:g}, sum {lane_total.sum:.6f}")
    one = online_normalizer_one_exp(SCORES)
    print(f"one exponential per score: max {one[0]:g}, sum {one[1]:.6f}")
    print(
        f"worked example: {facts()['shape']}; online reads save "
        f"{facts()['saving']} of the three-pass bytes"
    )
