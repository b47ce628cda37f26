# ruff: noqa: E501  (a table of exercises: one case a line reads best)
"""The practice track's exercises as data: what the learner writes, the cases
the grader runs, the reference, the tolerance and the hints.

Each exercise names one Python function the learner's file defines (it takes
the inputs and a preallocated ``out`` and fills it, as Triton-Puzzles does) and
lives in ``practice/<name>/`` with ``starter.py``, ``solution.py`` and the
typical wrong attempts ``wrong_*.py``, each of which must fail with the hint
that names its mistake (``tests/scripts/practice`` checks all three ways).

This module is data and imports no torch (its references import it when
called), so the site's pages can list the track and each exercise's contract.

A case builds its inputs from a seed, so a run can be replayed; inputs may be
views (a transpose, every other column) so flat pointer arithmetic that
assumes contiguity shows up. Sizes are small: the interpreter runs each
program instance in turn on the CPU, about a millisecond apiece.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scripts.qualify.learner_cases import HUGE, WINDOW, Case, Input  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
PRACTICE_DIR = ROOT / "practice"
#: The grader's command as every page, starter file and ``start`` spell it.
COMMAND = ".venv/bin/python -m scripts.practice"


def check_command(name: str, file: str) -> str:
    """The one spelling of "grade this file": ``COMMAND check NAME FILE``."""
    return f"{COMMAND} check {name} {file}"


@dataclass(frozen=True)
class Exercise:
    name: str
    title: str
    topic: str  # what search and the list show
    lesson: str  # the lesson page it practises (docs path)
    function: str  # the function the learner's file defines
    signature: str  # as the page shows it
    reference: Callable  # (inputs as float64 tensors, **params) -> float64 tensor
    cases: tuple[Case, ...]
    tolerance: tuple  # ("exact",) or ("close", atol, rtol)
    hints: dict[
        str, str
    ]  # condition seen -> what to look at (scripts/practice/hints.py)
    deterministic: bool = False  # called twice: the bits must agree
    forbidden: tuple[str, ...] = ()  # what the contract rules out ("float atomics")
    find_and_fix: bool = False
    #: A known mistake -> the outputs it can give (one per block size it
    #: might use), from the same float64 inputs as the reference.
    mistakes: dict[str, Callable] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return PRACTICE_DIR / self.name.replace("-", "_")


# --------------------------------------------------------------------------
# References: float64, from the inputs the learner's function received
# --------------------------------------------------------------------------


def _relu_scale(x, scale=1.0, bias=0.0):
    return (x * scale + bias).relu()


def _softmax_rows(x):
    return x.softmax(dim=-1)


def _sum(x):
    return x.sum().reshape(1)


def _rms_norm(x, w, eps=1e-6):
    return x / ((x * x).mean(dim=-1, keepdim=True) + eps).sqrt() * w


def _merge(m1, s1, m2, s2):
    import torch

    m = torch.maximum(m1, m2)
    return torch.stack([m, s1 * (m1 - m).exp() + s2 * (m2 - m).exp()])


def _causal_attention(q, k, v, scale=1.0):
    import torch

    scores = q @ k.T * scale
    n, m = scores.shape
    keep = torch.arange(m)[None, :] <= torch.arange(n)[:, None]
    scores = scores.masked_fill(~keep, -math.inf)
    return scores.softmax(dim=-1) @ v


def _window(window, start=0):
    # The grader passes the window's own bytes: x[start:start + WINDOW].
    return window.clone()


def _scale_tail(x):
    return 3.0 * x


def _vec(n, fill="randn", dtype="float32"):
    return (Input("x", (n,), dtype, fill), Input("y", (n,), dtype, fill))


# --------------------------------------------------------------------------
# Known mistakes: the output each gives, from the same float64 inputs
# --------------------------------------------------------------------------

#: Block sizes a learner's kernel may use; a mistake that depends on the
#: block is tried at each.
BLOCKS = (16, 32, 64, 128, 256, 512, 1024, 2048)


def _rms(x):
    return (x * x).mean(dim=-1, keepdim=True).sqrt()


def _blocks(x, block):
    """x cut into blocks of `block`, the last one short."""
    return [x[i : i + block] for i in range(0, x.numel(), block)]


def _local_scans(x):
    import torch

    return [torch.cat([b.cumsum(0) for b in _blocks(x, k)]) for k in BLOCKS]


def _carried(x, carry_of):
    """Each block's own scan plus carry_of(totals, block index)."""
    import torch

    made = []
    for k in BLOCKS:
        parts = _blocks(x, k)
        totals = [float(p.sum()) for p in parts]
        made.append(
            torch.cat([p.cumsum(0) + carry_of(totals, i) for i, p in enumerate(parts)])
        )
    return made


def _merge_with(m1, s1, m2, s2, rescale):
    import torch

    m = torch.maximum(m1, m2)
    return [torch.stack([m, s1 * rescale(m1, m) + s2 * rescale(m2, m)])]


def _k_not_advanced(a, b):
    return [-(-a.shape[1] // k) * (a[:, :k] @ b[:k]) for k in BLOCKS[:3]]


def _strict_causal(q, k, v, scale=1.0):
    import torch

    scores = q @ k.T * scale
    n, m = scores.shape
    keep = torch.arange(m)[None, :] < torch.arange(n)[:, None]
    return [scores.masked_fill(~keep, -math.inf).softmax(dim=-1) @ v]


MISTAKES = {
    "no_bias": lambda x, scale, bias: [(x * scale).relu()],
    "first_block": lambda x: [x[:k].sum().reshape(1) for k in BLOCKS if k < x.numel()],
    "no_weight": lambda x, w, eps: [x / ((x * x).mean(-1, keepdim=True) + eps).sqrt()],
    "no_eps": lambda x, w, eps: [x / _rms(x) * w],
    "eps_outside": lambda x, w, eps: [x / (_rms(x) + eps) * w],
    "not_swapped": lambda x: [x.reshape(x.shape[1], x.shape[0])],
    "no_carry": _local_scans,
    "exclusive": lambda x: [x.cumsum(0) - x],
    "own_total": lambda x: _carried(x, lambda t, i: sum(t[: i + 1])),
    "previous_only": lambda x: _carried(x, lambda t, i: t[i - 1] if i else 0),
    "no_rescale": lambda m1, s1, m2, s2: _merge_with(m1, s1, m2, s2, lambda mi, m: 1.0),
    "inverted_scale": lambda m1, s1, m2, s2: _merge_with(
        m1, s1, m2, s2, lambda mi, m: (m - mi).exp()
    ),
    "k_not_advanced": _k_not_advanced,
    "hides_own_key": _strict_causal,
    "no_scale": lambda q, k, v, scale: [_causal_attention(q, k, v, 1.0)],
}


def _mistakes(*names: str) -> dict:
    return {name: MISTAKES[name] for name in names}


#: The largest is past a few thousand, so a grid of a fixed size misses it;
#: 0 asks for an empty grid.
SIZES = (0, 1, 255, 256, 257, 1031, 5000)


EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        name="vector-add",
        title="Masked vector add",
        topic="program_id, arange, masks, the tail, the grid",
        lesson="kernels/where-time-goes/triton-on-ramp.md",
        function="vector_add",
        signature="vector_add(x, y, out)  # out = x + y, 1-D float32",
        reference=lambda x, y: x + y,
        cases=tuple(Case(f"n={n}", _vec(n), (n,)) for n in SIZES),
        tolerance=("exact",),
        hints={},
    ),
    Exercise(
        name="relu-scale",
        title="A fused elementwise op: relu(x * scale + bias)",
        topic="fusion, scalar arguments, NaN policy",
        lesson="kernels/memory-bound/fusion-residual-add-relu.md",
        function="relu_scale",
        signature="relu_scale(x, out, scale, bias)  # out = relu(x * scale + bias)",
        reference=_relu_scale,
        cases=(
            Case("n=257", (Input("x", (257,)),), (257,), params={"scale": 1.5, "bias": 0.25}),
            Case("n=4099", (Input("x", (4099,)),), (4099,), params={"scale": -2.0, "bias": 1.0}),
            Case(
                "NaN inputs", (Input("x", (300,), fill="nan"),), (300,),
                params={"scale": 1.0, "bias": 0.0},
            ),
        ),
        # x * scale rounds to float32 before the bias is added: an error of up
        # to 2**-24 |x * scale| that no rtol covers where the sum is near 0
        # (with atol 0 the solution failed seeds 5, 7, 8, 9 and 13). atol 1e-6
        # covers |x * scale| up to 16: randn inputs, scales up to 2.
        tolerance=("close", 1e-6, 1e-6),
        hints={
            "nan_lost": "NaN must stay NaN (torch.relu keeps it): tl.where(v < 0, 0.0, v) "
            "keeps it, since NaN < 0 is false; tl.where(v > 0, v, 0.0) does not, and "
            "neither does tl.maximum(v, 0.0) on a GPU unless told to propagate NaN",
            "no_bias": "these are relu(x * scale): the bias is never added",
        },
        mistakes=_mistakes("no_bias"),
    ),
    Exercise(
        name="strided-copy-2d",
        title="Copy a 2-D view, whatever its strides",
        topic="pointers and strides, non-contiguous inputs, 2-D grids",
        lesson="kernels/work-mapping/layouts-strides-offsets.md",
        function="copy_2d",
        signature="copy_2d(x, out)  # out (contiguous) = x (any strides)",
        reference=lambda x: x.clone(),
        cases=(
            Case("contiguous 37x50", (Input("x", (37, 50)),), (37, 50)),
            Case("transposed 50x37", (Input("x", (50, 37), view="transposed"),), (50, 37)),
            Case("every other column 20x33", (Input("x", (20, 33), view="step2"),), (20, 33)),
            Case("contiguous 3x700", (Input("x", (3, 700)),), (3, 700)),
        ),
        tolerance=("exact",),
        hints={},
    ),
    Exercise(
        name="row-softmax",
        title="Softmax of each row",
        topic="row reductions, max subtraction, masked lanes as -inf",
        lesson="kernels/attention/online-softmax.md",
        function="row_softmax",
        signature="row_softmax(x, out)  # softmax over the last dimension, rows <= 1024",
        reference=_softmax_rows,
        cases=(
            Case("4x8", (Input("x", (4, 8)),), (4, 8)),
            Case("7x100 (not a power of two)", (Input("x", (7, 100)),), (7, 100)),
            Case("large values 3x64", (Input("x", (3, 64), fill="large"),), (3, 64)),
            Case("transposed 16x9", (Input("x", (16, 9), view="transposed"),), (16, 9)),
            Case("one column 6x1", (Input("x", (6, 1)),), (6, 1)),
        ),
        tolerance=("close", 1e-7, 1e-5),
        hints={
            "ragged": "wrong only in rows a block overruns: masked-off lanes must "
            "load as -inf, or each adds exp(0 - max) to the sum",
        },
    ),
    Exercise(
        name="reduce-sum-two-pass",
        title="Sum a vector in two passes",
        topic="reductions across blocks, partial sums",
        lesson="kernels/memory-bound/deterministic-reductions.md",
        function="reduce_sum",
        signature="reduce_sum(x, out)  # out[0] = x.sum(), 1-D float32",
        reference=_sum,
        cases=(
            Case("n=1", (Input("x", (1,)),), (1,)),
            Case("n=4099", (Input("x", (4099,)),), (1,)),
            Case("n=20000 positive", (Input("x", (20000,), fill="positive"),), (1,)),
        ),
        tolerance=("close", 1e-4, 1e-5),
        hints={
            "first_block": "this is the sum of the first block only: every block's "
            "partial sum must be added",
        },
        mistakes=_mistakes("first_block"),
    ),
    Exercise(
        name="reduce-sum-deterministic",
        title="A sum with the same bits every run",
        topic="deterministic reductions, atomics, a fixed combining order",
        lesson="kernels/memory-bound/deterministic-reductions.md",
        function="reduce_sum",
        signature="reduce_sum(x, out)  # out[0] = x.sum(), the same bits every call",
        reference=_sum,
        cases=(
            Case("n=1", (Input("x", (1,)),), (1,)),
            Case("n=5000", (Input("x", (5000,)),), (1,)),
            Case("n=30011", (Input("x", (30011,)),), (1,)),
        ),
        tolerance=("close", 1e-4, 1e-5),
        hints={
            "forbidden": "float atomics add blocks in whatever order they finish, so "
            "the bits change from run to run on a GPU (the interpreter runs blocks "
            "in order and cannot show it): write per-block partials, then combine "
            "them in a fixed order",
        },
        deterministic=True,
        forbidden=("float atomics",),
    ),
    Exercise(
        name="rms-norm",
        title="RMS norm of each row",
        topic="row reductions, dividing by the real length",
        lesson="kernels/memory-bound/fusion-residual-add-relu.md",
        function="rms_norm",
        signature="rms_norm(x, w, out, eps)  # out = x / sqrt(mean(x^2) + eps) * w",
        reference=_rms_norm,
        cases=(
            Case("8x64", (Input("x", (8, 64)), Input("w", (64,))), (8, 64), params={"eps": 1e-6}),
            Case(
                "5x100 (not a power of two)", (Input("x", (5, 100)), Input("w", (100,))),
                (5, 100), params={"eps": 1e-6},
            ),
            Case("8x64, eps=1", (Input("x", (8, 64)), Input("w", (64,))), (8, 64), params={"eps": 1.0}),
            Case("one column 4x1", (Input("x", (4, 1)), Input("w", (1,))), (4, 1), params={"eps": 1e-6}),
        ),
        tolerance=("close", 1e-6, 1e-5),
        hints={
            "ragged": "wrong only in rows a block overruns: the mean divides by the "
            "row's length, not by the block size",
            "no_weight": "each row is normalised but never multiplied by w",
            "no_eps": "these are x / sqrt(mean(x^2)) * w: eps is missing",
            "eps_outside": "these are x / (sqrt(mean(x^2)) + eps) * w: eps belongs "
            "inside the square root",
        },
        mistakes=_mistakes("no_weight", "no_eps", "eps_outside"),
    ),
    Exercise(
        name="transpose-tiled",
        title="Transpose by tiles",
        topic="2-D tiles, coalescing, masks in two dimensions",
        lesson="kernels/memory-bound/transpose-and-coalescing.md",
        function="transpose",
        signature="transpose(x, out)  # out = x.T, 2-D float32",
        reference=lambda x: x.T.clone(),
        cases=(
            Case("64x64", (Input("x", (64, 64)),), (64, 64)),
            Case("33x70 (not multiples of the tile)", (Input("x", (33, 70)),), (70, 33)),
            Case("1x5", (Input("x", (1, 5)),), (5, 1)),
        ),
        tolerance=("exact",),
        hints={
            "not_swapped": "each tile is stored where it was read: store it at the "
            "swapped position, out[j, i] = x[i, j]",
            "store_masked_past_end": "the store is masked, yet it landed past the "
            "end: mask rows and columns of every tile, both extents have a tail",
        },
        mistakes=_mistakes("not_swapped"),
    ),
    Exercise(
        name="block-scan",
        title="Inclusive prefix sum across blocks",
        topic="block scans, carries between blocks",
        lesson="kernels/attention/prefix-scans-across-blocks.md",
        function="cumsum",
        signature="cumsum(x, out)  # out = inclusive prefix sum of int32 x",
        reference=lambda x: x.cumsum(0),
        cases=(
            Case("n=7", (Input("x", (7,), "int32", "counts"),), (7,), out_dtype="int32"),
            Case("n=3000", (Input("x", (3000,), "int32", "counts"),), (3000,), out_dtype="int32"),
        ),
        tolerance=("exact",),
        hints={
            "no_carry": "each block is scanned on its own: every block after the "
            "first must add the totals of all blocks before it (the carry)",
            "exclusive": "this is the exclusive scan: inclusive means out[i] "
            "includes x[i]",
        },
        mistakes=_mistakes("no_carry", "exclusive"),
    ),
    Exercise(
        name="softmax-merge",
        title="Merge two online-softmax states",
        topic="online softmax, rescaling by the new max",
        lesson="kernels/attention/online-softmax.md",
        function="merge_states",
        signature="merge_states(m1, s1, m2, s2, out)  # out[0] = max, out[1] = sum",
        reference=_merge,
        cases=(
            Case("n=300", tuple(Input(n, (300,)) for n in ("m1", "s1", "m2", "s2")), (2, 300)),
            Case(
                "large maxima n=50",
                (Input("m1", (50,), fill="large"), Input("s1", (50,), fill="positive"),
                 Input("m2", (50,), fill="large"), Input("s2", (50,), fill="positive")),
                (2, 50),
            ),
        ),
        tolerance=("close", 1e-6, 1e-5),
        hints={
            "no_rescale": "the two sums are added as they are: each is rescaled by "
            "exp(its own max - the merged max) first",
            "inverted_scale": "the rescale is inverted: it is exp(its max - the new "
            "max), which is <= 1",
        },
        mistakes=_mistakes("no_rescale", "inverted_scale"),
    ),
    Exercise(
        name="matmul-tiled",
        title="A tiled matmul with a K loop",
        topic="tiles, the K loop, tl.dot, masks on every edge",
        lesson="kernels/matrix-multiplication/tiled-matmul.md",
        function="matmul",
        signature="matmul(a, b, out)  # out = a @ b, float32, any M, N, K",
        reference=lambda a, b: a @ b,
        cases=(
            Case("16x16x16", (Input("a", (16, 16)), Input("b", (16, 16))), (16, 16)),
            Case("33x47x65", (Input("a", (33, 65)), Input("b", (65, 47))), (33, 47)),
            Case(
                "b transposed 20x24x40",
                (Input("a", (20, 40)), Input("b", (40, 24), view="transposed")),
                (20, 24),
            ),
        ),
        tolerance=("close", 1e-4, 1e-4),
        hints={
            "k_not_advanced": "every step of the K loop reads the first K block: "
            "advance both pointers by BLOCK_K each step",
            "load_masked_past_end": "the loads are masked, yet they read past the "
            "end: mask the K tail of both tiles too (k0 + ks < K, other=0.0)",
        },
        mistakes=_mistakes("k_not_advanced"),
    ),
    Exercise(
        name="attention-tile-causal",
        title="One causal attention tile",
        topic="attention, causal masks, the softmax scale",
        lesson="kernels/attention/flash-attention-forward.md",
        function="causal_attention",
        signature="causal_attention(q, k, v, out, scale)  # one head, S <= 64, D <= 64",
        reference=_causal_attention,
        cases=(
            Case("S=16 D=16", tuple(Input(n, (16, 16)) for n in "qkv"), (16, 16), params={"scale": 0.25}),
            Case("S=13 D=8", tuple(Input(n, (13, 8)) for n in "qkv"), (13, 8), params={"scale": 8**-0.5}),
            Case(
                "large scores S=16 D=16",
                (Input("q", (16, 16), fill="large"), Input("k", (16, 16)), Input("v", (16, 16))),
                (16, 16), params={"scale": 0.25},
            ),
        ),
        tolerance=("close", 1e-5, 1e-4),
        hints={
            "hides_own_key": "the mask hides each query's own key: a query sees "
            "keys at positions <= its own, its own included",
            "no_scale": "the scores are not scaled: multiply q @ k.T by scale "
            "before the softmax",
        },
        mistakes=_mistakes("hides_own_key", "no_scale"),
    ),
    Exercise(
        name="fix-missing-mask",
        title="Find and fix: the tail nobody masked",
        topic="masks, out-of-bounds stores",
        lesson="kernels/correctness/kernel-correctness-contracts.md",
        function="scale_by_three",
        signature="scale_by_three(x, out)  # out = 3 * x, 1-D float32",
        reference=_scale_tail,
        cases=tuple(Case(f"n={n}", (Input("x", (n,)),), (n,)) for n in (256, 257, 1000, 4099)),
        tolerance=("exact",),  # 3.0 * x in float32 rounds once, as the reference
        hints={"store_unmasked": "mask the store, not only the load"},
        find_and_fix=True,
    ),
    Exercise(
        name="fix-int32-offset-overflow",
        title="Find and fix: an offset past 2**31",
        topic="int32 overflow in offsets, 64-bit indexing",
        lesson="kernels/correctness/kernel-correctness-contracts.md",
        function="copy_window",
        signature="copy_window(x, out, start)  # out = x[start:start+4096], uint8",
        reference=_window,
        cases=(
            Case(
                "start=1000", (Input("x", (HUGE,), "uint8", "window"),), (WINDOW,),
                out_dtype="uint8", params={"start": 1000},
            ),
            Case(
                "start=2**31-100", (Input("x", (HUGE,), "uint8", "window"),),
                (WINDOW,), out_dtype="uint8", params={"start": 2**31 - 100},
            ),
        ),
        tolerance=("exact",),
        hints={
            "crash": "an address fell outside the tensor: does an int32 offset wrap "
            "past 2**31? compute offsets in int64",
        },
        find_and_fix=True,
    ),
    Exercise(
        name="fix-missing-carry",
        title="Find and fix: blocks that forgot the carry",
        topic="prefix sums, carries, ownership of output ranges",
        lesson="kernels/attention/prefix-scans-across-blocks.md",
        function="cumsum",
        signature="cumsum(x, out)  # out = inclusive prefix sum of int32 x",
        reference=lambda x: x.cumsum(0),
        cases=(
            Case("n=100", (Input("x", (100,), "int32", "counts"),), (100,), out_dtype="int32"),
            Case("n=2500", (Input("x", (2500,), "int32", "counts"),), (2500,), out_dtype="int32"),
        ),
        tolerance=("exact",),
        hints={
            "no_carry": "each block is scanned on its own: block b must add the "
            "totals of blocks 0..b-1 (the carry)",
            "own_total": "block b adds the totals of blocks 0..b, its own too: "
            "the carry is blocks 0..b-1 only",
            "previous_only": "block b adds only block b-1's total: the carry is "
            "the totals of all blocks 0..b-1",
        },
        mistakes=_mistakes("no_carry", "own_total", "previous_only"),
        find_and_fix=True,
    ),
)  # fmt: skip

BY_NAME = {e.name: e for e in EXERCISES}
