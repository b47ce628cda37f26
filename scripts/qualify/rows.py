"""The one-input families of cases (used by ``scripts/qualify/cases.py``):
"rows", an operation over each row's last dimension, and "flat", one over a
1-D tensor; both give a tensor of the input's shape and dtype.
"""

from __future__ import annotations

import torch

from scripts.qualify.builders import (
    Call,
    case_seed,
    input_tensor,
    object_spec,
    random_values,
    tensor_spec,
)
from scripts.qualify.cases import Case
from scripts.qualify.task import Task
from snippets.kernel_correctness_contracts import adversarial as adv


def one_input(shape, dtype, *, scale=1.0, layout="contiguous", note=""):
    """One call on fresh random values of `shape` times `scale`, laid out
    row-major or "transposed" (a transposed view of a row-major storage)."""

    def build(device):
        name = ("one", shape, str(dtype), scale, layout)
        if layout == "transposed":
            values = random_values(shape[::-1], dtype, case_seed(*name)) * scale
            spec = adv.transposed(values)
        else:
            spec = adv.contiguous(random_values(shape, dtype, case_seed(*name)) * scale)
        return [Call("values", (tensor_spec(spec),), note=note)]

    return build


def one_input_twice(shape, dtype):
    """The same input twice: the second call must give the same bits."""

    def build(device):
        first = one_input(shape, dtype, note="first call")(device)[0]
        return [first, Call("values", reuse="same", note="same input again")]

    return build


def error_calls(rows):
    """rows: (input factories, error type, names, note, and the spellings of
    the wrong value, one of which the message must show)."""

    def build(device):
        return [
            Call(
                "error",
                tuple(make(device) for make in makers),
                expect_error=error,
                expect_names=names,
                expect_values=values,
                note=note,
            )
            for makers, error, names, note, values in rows
        ]

    return build


def row_cases(task: Task) -> list[Case]:
    """The "rows" family: one tensor in, the operation over its last
    dimension (or, with the task's rank 2, over the matrix), a tensor of the
    input's shape and dtype out (or the reference's, when the task says so)."""
    f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
    (x,) = task.args

    def row(name, group, catches, shape, dtype=f32, **kw):
        return Case(name, group, catches, one_input(shape, dtype, **kw))

    kernel = [
        row("size-1", "sizes", "a grid of zero programs; one element", (1, 1)),
        row("row-257", "sizes", "a mask one past a power of two", (3, 257)),
        row("prime-2d", "sizes", "tiles that must divide a dimension", (37, 71)),
        row("wide-row", "sizes", "a row wider than one block", (2, 4099)),
        row("many-rows", "sizes", "a grid of fixed size; rows past it", (515, 3)),
        row("three-d", "sizes", "leading dimensions folded wrongly", (3, 5, 257)),
        row(
            "float16",
            "dtypes",
            "float16 loaded or stored as another type",
            (33, 129),
            f16,
        ),
        row("bfloat16", "dtypes", "bfloat16 accumulated in bfloat16", (16, 300), bf16),
        row(
            "large-values",
            "special values",
            "large magnitudes: an unguarded step overflows",
            (4, 300),
            scale=1e4,
        ),
        row(
            "transposed",
            "layouts",
            "strides ignored: rows read as columns",
            (64, 37),
            layout="transposed",
        ),
        Case(
            "repeat-bitwise",
            "calls",
            "results that change from call to call",
            one_input_twice((8, 1000), f32),
        ),
    ]
    if task.rank == 2:  # a matrix operation: no 3-d case, a refusal of one
        kernel = [case for case in kernel if case.name != "three-d"]
    unsupported = [
        Case(
            "not-a-tensor",
            "unsupported",
            "TypeError naming the argument",
            error_calls([((object_spec([1.0]),), "TypeError", (x,), f"{x}=[1.0]", ())]),
        ),
        Case(
            "unsupported-dtype",
            "unsupported",
            "TypeError naming the dtype",
            error_calls(
                [
                    ((input_tensor((4, 8), d),), "TypeError", (x,), n, (n,))
                    for d, n in ((torch.float64, "float64"), (torch.int32, "int32"))
                ]
            ),
        ),
        Case(
            "scalar-0d",
            "unsupported",
            "ValueError: no last dimension",
            error_calls([((input_tensor(()),), "ValueError", (x,), "0-d", ())]),
        ),
    ]
    if task.rank == 2:
        three = ((input_tensor((2, 3, 4)),), "ValueError", (x,), "3-d", ("(2, 3, 4)",))
        unsupported.append(
            Case(
                "three-d",
                "unsupported",
                "ValueError naming x and its shape",
                error_calls([three]),
            )
        )
    return kernel + unsupported


def flat_cases(task: Task) -> list[Case]:
    """The "flat" family: a 1-D tensor in, one of its shape out (or the
    reference's, when the task says so)."""
    f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
    (x,) = task.args

    def flat(name, group, catches, numel, dtype=f32, **kw):
        return Case(name, group, catches, one_input((numel,), dtype, **kw))

    kernel = [
        flat("size-1", "sizes", "a grid of zero programs; one element", 1),
        flat("size-257", "sizes", "a mask one past a power of two", 257),
        flat("two-blocks", "sizes", "a carry lost between two blocks", 4099),
        flat("many-blocks", "sizes", "a carry chain over many blocks", 70001),
        flat("float16", "dtypes", "float16 accumulated in float16", 3001, f16),
        flat("bfloat16", "dtypes", "bfloat16 accumulated in bfloat16", 3001, bf16),
        flat(
            "large-values", "special values", "overflow in a partial", 5000, scale=1e4
        ),
        Case(
            "repeat-bitwise",
            "calls",
            "results that change from call to call",
            one_input_twice((20000,), f32),
        ),
    ]
    rows = [
        ((object_spec([1.0]),), "TypeError", (x,), f"{x}=[1.0]", ()),
        (
            (input_tensor((8,), torch.float64),),
            "TypeError",
            (x,),
            "float64",
            ("float64",),
        ),
    ]
    if task.rank == 1:
        rows.append(((input_tensor((4, 8)),), "ValueError", (x,), "2-d", ("(4, 8)",)))
    unsupported = [
        Case(
            "unsupported",
            "unsupported",
            "a refusal naming the argument: not a tensor, float64, 2-d",
            error_calls(rows),
        ),
    ]
    return kernel + unsupported
