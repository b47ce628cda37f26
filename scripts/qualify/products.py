"""The families of matrix products (used by ``scripts/qualify/cases.py``):
"matrix-product", ``a (M, K) @ b (K, N)``, and "qkv-causal",
``P v`` with P the row-normalised ``exp(q k^T / sqrt(D))`` and query i
seeing keys 0..i, over ``q``, ``k``, ``v`` of one (B, H, S, D) shape.

The 16-bit cases take shapes off the course kernels' TMA paths (rows of
K, N or D elements that span a multiple of 16 bytes): a launch given a
``TensorDescriptor`` shows the harness neither the output's storage nor a
specialisation it can compile, so those paths are not qualified here. Every
head dimension of the 16-bit qkv-causal cases is therefore not a multiple of
8 (nor a power of two).

Every float32 input sits in one case of each family (``float32``): there a
float32 ``tl.dot`` that runs as TF32 on a GPU is judged with its operands
rounded as there (``interpreter_rounding.round_tf32_dots``); the other
cases are 16-bit, whose values TF32 holds exactly, so a kernel that only
forgets ``input_precision="ieee"`` fails that one case alone. Likewise only
``ragged-s`` has a sequence longer than a key block and not a multiple of
it, only ``transposed`` and ``bshd-layout`` are not row-major, and only
``long-k`` sums more than 128 terms: each catches its corpus candidate
alone (the task's ``only_catches``).
"""

from __future__ import annotations

import torch

from scripts.qualify.builders import Call, case_seed, random_values, tensor_spec
from scripts.qualify.cases import Case
from scripts.qualify.rows import error_calls
from scripts.qualify.task import Task
from snippets.kernel_correctness_contracts import adversarial as adv

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16


def _layout(values: torch.Tensor, layout: str) -> dict:
    """Row-major, or the same values stored another way: "transposed" (a
    matrix stored column by column) or "bshd" ((B, H, S, D) values stored
    as (B, S, H, D), as a model's projection leaves them)."""
    if layout == "transposed":
        return adv.transposed(values)
    if layout == "bshd":
        stored = values.permute(0, 2, 1, 3).contiguous()
        B, H, S, D = values.shape
        return adv.strided(stored, values.shape, (S * H * D, D, H * D, 1))
    return adv.contiguous(values)


def operands(shapes, dtype, *, scales=None, layout="contiguous", note="", out=None):
    """One call on fresh random inputs of `shapes` (times `scales`), all laid
    out as `layout`; `out` is the result's shape when it is not input 1's."""
    scales = scales or (1.0,) * len(shapes)

    def make(shape, scale, index):
        seed = case_seed("product", shape, str(dtype), scale, layout, index)
        values = random_values(shape, dtype, seed) * scale
        return tensor_spec(_layout(values, layout))

    def build(device):
        specs = tuple(
            make(shape, scale, i)
            for i, (shape, scale) in enumerate(zip(shapes, scales, strict=True))
        )
        return [Call("values", specs, note=note, out_size=out)]

    return build


def calls_of(*builds):
    """One case made of several calls (each build's)."""
    return lambda device: [call for build in builds for call in build(device)]


def spec_of(shape, dtype=F32, seed=0):
    """An input factory for a refusal: a contiguous tensor."""

    def make(device):
        return tensor_spec(adv.contiguous(random_values(shape, dtype, seed)))

    return make


def not_a_tensor(value):
    return lambda device: {"kind": "object", "value": value}


def matrix_product_cases(task: Task) -> list[Case]:
    """The "matrix-product" family: a (M, K) @ b (K, N), a new (M, N)
    result."""
    a, b = task.args

    def mm(name, group, catches, m, n, k, dtype, **kw):
        build = operands(((m, k), (k, n)), dtype, out=(m, n), **kw)
        return Case(name, group, catches, build)

    kernel = [
        mm("one-element", "sizes", "a grid of zero programs", 1, 1, 1, F16),
        mm("ragged", "sizes", "tiles that must divide M, N or K", 37, 71, 45, F16),
        mm(
            "many-tiles",
            "sizes",
            "a grid of one tile; tiles past the first in M or N",
            130,
            260,
            70,
            BF16,
        ),  # fmt: skip
        mm("empty-k", "sizes", "K = 0: a result never zeroed", 5, 7, 0, F16),
        mm("long-k", "sizes", "a sum over K kept in 16 bits", 16, 16, 2049, F16),
        mm(
            "transposed",
            "layouts",
            "strides ignored: both operands stored column by column",
            33,
            50,
            40,
            F16,
            layout="transposed",
        ),  # fmt: skip
        Case(
            "float32",
            "dtypes",
            "float32 products rounded to TF32 (a tl.dot without "
            'input_precision="ieee"); float32 loaded as another type',
            calls_of(
                operands(((1, 1), (1, 1)), F32, out=(1, 1)),
                operands(((32, 64), (64, 48)), F32, out=(32, 48)),
            ),
        ),
    ]
    unsupported = [
        Case(
            "unsupported",
            "unsupported",
            "a refusal naming the argument: not a tensor, float64, dtypes or "
            "inner dimensions that differ, 1-D",
            error_calls(
                [
                    (
                        (spec_of((4, 4)), not_a_tensor(2.0)),
                        "TypeError",
                        (b,),
                        f"{b}=2.0",
                        (),
                    ),
                    (
                        (
                            spec_of((4, 4), torch.float64),
                            spec_of((4, 4), torch.float64),
                        ),
                        "TypeError",
                        (a, b),
                        "float64",
                        ("float64",),
                    ),
                    (
                        (spec_of((4, 4)), spec_of((4, 4), F16)),
                        "TypeError",
                        (a, b),
                        "float32 @ float16",
                        ("float16",),
                    ),
                    (
                        (spec_of((4, 5)), spec_of((6, 3))),
                        "ValueError",
                        (a, b),
                        "(4, 5) @ (6, 3)",
                        ("5", "6"),
                    ),
                    (
                        (spec_of((4,)), spec_of((4, 3))),
                        "ValueError",
                        (a,),
                        "1-D a",
                        ("(4,)",),
                    ),
                ]
            ),  # fmt: skip
        )
    ]
    return kernel + unsupported


def qkv_causal_cases(task: Task) -> list[Case]:
    """The "qkv-causal" family: P v, P the row-normalised exp(q k^T /
    sqrt(D)), query i seeing keys 0..i, over q, k, v of one (B, H, S, D)
    shape; a result of q's shape and dtype."""
    q, k, v = task.args

    def att(name, group, catches, shape, dtype, **kw):
        return Case(name, group, catches, operands((shape,) * 3, dtype, **kw))

    kernel = [
        att("one-key", "sizes", "S = 1: the first query sees key 0 only",
            (1, 1, 1, 20), F16),
        att("first-rows", "causal mask", "the mask's first rows: query i sees "
            "keys 0..i (a mask that hides the diagonal leaves row 0 empty)",
            (1, 2, 3, 36), BF16),
        att("ragged-s", "sizes", "S not a multiple of the key block: the "
            "last keys dropped or read past S", (1, 2, 100, 20), F16),
        att("many-blocks", "sizes", "more than one block of queries and keys, "
            "more than one (batch, head)", (2, 2, 160, 52), BF16),
        att("large-scores", "special values", "scores in the hundreds: exp "
            "overflows without the running max subtracted",
            (1, 2, 64, 36), F16, scales=(12.0, 12.0, 1.0)),
        att("bshd-layout", "layouts", "strides ignored: (B, S, H, D) storage "
            "read as (B, H, S, D)", (2, 3, 32, 20), F16, layout="bshd"),
        Case("float32", "dtypes", "scores or probabilities rounded to TF32 (a "
             'tl.dot without input_precision="ieee"); float32 as another type',
             calls_of(operands(((1, 2, 32, 16),) * 3, F32),
                      operands(((1, 1, 64, 32),) * 3, F32))),
    ]  # fmt: skip
    shape = (1, 1, 4, 16)
    wrong = (1, 1, 5, 16)
    unsupported = [
        Case(
            "unsupported",
            "unsupported",
            "a refusal naming the argument: not a tensor, float64, shapes "
            "that differ, 3-D, a head dimension under 16",
            error_calls(
                [
                    ((not_a_tensor([1.0]), spec_of(shape), spec_of(shape)),
                     "TypeError", (q,), f"{q}=[1.0]", ()),
                    (tuple(spec_of(shape, torch.float64) for _ in range(3)),
                     "TypeError", (q, k, v), "float64", ("float64",)),
                    ((spec_of(shape), spec_of(wrong), spec_of(shape)),
                     "ValueError", (k,), f"{k} {wrong}", (str(wrong),)),
                    (tuple(spec_of((2, 4, 16)) for _ in range(3)), "ValueError",
                     (q,), "3-D", ("(2, 4, 16)",)),
                    (tuple(spec_of((1, 1, 4, 8)) for _ in range(3)), "ValueError",
                     (q,), "D = 8", ("8",)),
                ]
            ),
        )
    ]  # fmt: skip
    return kernel + unsupported
