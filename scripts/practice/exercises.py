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

ROOT = Path(__file__).resolve().parents[2]
PRACTICE_DIR = ROOT / "practice"
#: The grader's command as every page, starter file and ``start`` spell it.
COMMAND = ".venv/bin/python -m scripts.practice"


def check_command(name: str, file: str) -> str:
    """The one spelling of "grade this file": ``COMMAND check NAME FILE``."""
    return f"{COMMAND} check {name} {file}"


@dataclass(frozen=True)
class Input:
    """One argument: its name, logical shape and dtype, how its values are
    drawn, and the view the learner's function receives."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    fill: str = "randn"  # randn, positive, large, nan, counts
    view: str = ""  # "", "transposed" (a .t() view), "step2" (every other column)


@dataclass(frozen=True)
class Case:
    name: str
    inputs: tuple[Input, ...]
    out_shape: tuple[int, ...]
    out_dtype: str = "float32"
    params: dict = field(default_factory=dict)  # extra keyword arguments
    hint: str = ""  # said when this case fails and no sharper hint applies


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
    hints: dict[str, str]  # failure kind -> what to look at
    deterministic: bool = False  # called twice: the bits must agree
    forbidden: tuple[str, ...] = ()  # what the contract rules out ("float atomics")
    find_and_fix: bool = False

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


#: The int32-overflow exercise reads this many bytes starting past 2**31.
WINDOW = 4096
HUGE = 2**31 + 2 * WINDOW


def _vec(n, fill="randn", dtype="float32"):
    return (Input("x", (n,), dtype, fill), Input("y", (n,), dtype, fill))


SIZES = (1, 255, 256, 257, 1031)
TAIL_HINT = "is the last block masked, and is the grid rounded up (triton.cdiv)?"


EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        name="vector-add",
        title="Masked vector add",
        topic="program_id, arange, masks, the tail, the grid",
        lesson="kernels/where-time-goes/triton-on-ramp.md",
        function="vector_add",
        signature="vector_add(x, y, out)  # out = x + y, 1-D float32",
        reference=lambda x, y: x + y,
        cases=tuple(
            Case(f"n={n}", _vec(n), (n,), hint=TAIL_HINT) for n in SIZES
        ),
        tolerance=("exact",),
        hints={
            "unwritten": TAIL_HINT,
            "past_end": "mask the store as well as the load",
        },
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
            Case("n=1031", (Input("x", (1031,)),), (1031,), params={"scale": -2.0, "bias": 1.0}),
            Case(
                "NaN inputs", (Input("x", (300,), fill="nan"),), (300,),
                params={"scale": 1.0, "bias": 0.0},
                hint="NaN must stay NaN, as torch.relu keeps it",
            ),
        ),
        tolerance=("close", 0.0, 1e-6),
        hints={
            "nan_lost": "NaN must stay NaN (torch.relu keeps it): tl.where(v < 0, 0.0, v) "
            "keeps it, since NaN < 0 is false; tl.where(v > 0, v, 0.0) does not, and "
            "neither does tl.maximum(v, 0.0) on a GPU unless told to propagate NaN",
            "values": "are scale and bias both applied, in that order?",
            "unwritten": TAIL_HINT,
        },
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
            Case(
                "transposed 50x37", (Input("x", (50, 37), view="transposed"),), (50, 37),
                hint="right on a contiguous input, wrong on a transposed one: index "
                "with x.stride(0) and x.stride(1), not the shape",
            ),
            Case(
                "every other column 20x33", (Input("x", (20, 33), view="step2"),),
                (20, 33),
                hint="a stepped slice has a column stride of 2: use x.stride(1)",
            ),
        ),
        tolerance=("exact",),
        hints={"unwritten": "does the grid cover every row and every column block?"},
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
            Case(
                "7x100 (not a power of two)", (Input("x", (7, 100)),), (7, 100),
                hint="masked-off lanes must load as -inf, or they add exp(0 - max) to "
                "the sum",
            ),
            Case(
                "large values 3x64", (Input("x", (3, 64), fill="large"),), (3, 64),
                hint="exp overflows float32 past about 88: subtract the row's max first",
            ),
            Case(
                "transposed 16x9", (Input("x", (16, 9), view="transposed"),), (16, 9),
                hint="x here is a transposed view: read it through x.stride(0) and "
                "x.stride(1), not row * N + col",
            ),
        ),
        tolerance=("close", 1e-7, 1e-5),
        hints={},
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
            "values": "are every block's partial sums added, the last block's masked "
            "lanes loaded as 0, and out written (not added onto: it starts as "
            "whatever memory held)?",
            "unwritten": "out still holds its starting bytes: store the total with "
            "tl.store; an atomic add onto out is not added onto zero but onto "
            "whatever memory held",
        },
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
            "values": "are every block's partial sums added, in one fixed order?",
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
                hint="the mean divides by the row's length, not by the block size",
            ),
        ),
        tolerance=("close", 1e-6, 1e-5),
        hints={
            "values": "is each element divided by its own row's root mean square, "
            "then multiplied by w?"
        },
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
            Case(
                "33x70 (not multiples of the tile)", (Input("x", (33, 70)),), (70, 33),
                hint="mask rows and columns of every tile: both extents have a tail",
            ),
            Case("1x5", (Input("x", (1, 5)),), (5, 1)),
        ),
        tolerance=("exact",),
        hints={
            "values": "is each tile stored at the swapped position, out[j, i] = x[i, j]?",
            "unwritten": "mask rows and columns of every tile: both extents have a tail",
            "past_end": "mask rows and columns of every tile: both extents have a tail",
        },
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
            Case(
                "n=3000", (Input("x", (3000,), "int32", "counts"),), (3000,),
                out_dtype="int32",
                hint="every block after the first must add the totals of all blocks "
                "before it (the carry)",
            ),
        ),
        tolerance=("exact",),
        hints={
            "values": "every block after the first must add the totals of all blocks "
            "before it (the carry); inclusive means out[i] includes x[i]",
        },
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
            Case(
                "n=300",
                tuple(Input(n, (300,)) for n in ("m1", "s1", "m2", "s2")),
                (2, 300),
            ),
            Case(
                "large maxima n=50",
                (Input("m1", (50,), fill="large"), Input("s1", (50,), fill="positive"),
                 Input("m2", (50,), fill="large"), Input("s2", (50,), fill="positive")),
                (2, 50),
                hint="rescale each sum by exp(its max - the new max), which is <= 1",
            ),
        ),
        tolerance=("close", 1e-6, 1e-5),
        hints={"values": "each sum is rescaled by exp(its own max - the merged max)"},
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
            Case(
                "33x47x65", (Input("a", (33, 65)), Input("b", (65, 47))), (33, 47),
                hint="mask the K tail of both tiles (load 0 there), and the M and N "
                "edges of the store",
            ),
            Case(
                "b transposed 20x24x40",
                (Input("a", (20, 40)), Input("b", (40, 24), view="transposed")),
                (20, 24),
                hint="use b.stride(0) and b.stride(1): b may be a transposed view",
            ),
        ),
        tolerance=("close", 1e-4, 1e-4),
        hints={
            "values": "does the K loop advance both pointers by BLOCK_K each step and "
            "mask the K tail?",
            "nonfinite": "a load past the K edge read the guard: mask it with other=0",
            "read_past": "mask the K tail of both tiles (k0 + ks < K, other=0.0)",
        },
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
            Case(
                "S=16 D=16", tuple(Input(n, (16, 16)) for n in "qkv"), (16, 16),
                params={"scale": 0.25},
            ),
            Case(
                "S=13 D=8", tuple(Input(n, (13, 8)) for n in "qkv"), (13, 8),
                params={"scale": 8**-0.5},
                hint="a query sees every key at its own position and before it "
                "(key index <= query index)",
            ),
        ),
        tolerance=("close", 1e-6, 1e-5),
        hints={
            "values": "a query sees keys at positions <= its own; scores are scaled "
            "before the softmax",
            "nonfinite": "a row whose every key is masked gives NaN: a query sees "
            "keys at positions <= its own, its own included",
        },
    ),
    Exercise(
        name="fix-missing-mask",
        title="Find and fix: the tail nobody masked",
        topic="masks, out-of-bounds stores",
        lesson="kernels/correctness/kernel-correctness-contracts.md",
        function="scale_by_three",
        signature="scale_by_three(x, out)  # out = 3 * x, 1-D float32",
        reference=_scale_tail,
        cases=tuple(
            Case(f"n={n}", (Input("x", (n,)),), (n,), hint=TAIL_HINT)
            for n in (256, 257, 1000)
        ),
        tolerance=("close", 0.0, 1e-7),
        hints={
            "past_end": "mask the store, not only the load",
            "unwritten": TAIL_HINT,
            "values": "lanes past the end must not be loaded: mask the load too",
        },
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
                hint="start + offset passes 2**31 here: an int32 offset wraps "
                "negative; compute it in int64 (start.to(tl.int64) or an int64 arange)",
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
            Case(
                "n=2500", (Input("x", (2500,), "int32", "counts"),), (2500,),
                out_dtype="int32",
                hint="block b must add the totals of blocks 0..b-1, not its own total",
            ),
        ),
        tolerance=("exact",),
        hints={"values": "block b must add the totals of blocks 0..b-1, not its own"},
        find_and_fix=True,
    ),
)  # fmt: skip

BY_NAME = {e.name: e for e in EXERCISES}
