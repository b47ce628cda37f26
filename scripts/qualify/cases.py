"""The cases of the qualification (used by ``scripts/qualify/evaluator.py``).

Each case is a list of calls of the candidate, built by the functions of
``scripts/qualify/builders.py``; what the case table says about its inputs
is described from those calls (``describe``), so it cannot drift from them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from scripts.qualify.builders import (
    MID_NUMEL,
    Call,
    bands_missing,
    build_aliased,
    build_broadcast_column,
    build_broadcast_inner,
    build_broadcast_row,
    build_broadcast_x,
    build_channels_last,
    build_five_d,
    build_mixed_layout,
    build_nan_payloads,
    build_offset,
    build_recheck,
    build_refill,
    build_refill_some,
    build_repeat,
    build_sizes,
    build_stepped,
    build_tiny_values,
    build_transposed,
    build_widened_bf16,
    dtype_text,
    error_build,
    input_tensor,
    layout_text,
    mixed_and_positive,
    object_spec,
    one_pair,
    plan,
    plan_sizes,
    runs,
    shape_spellings,
    shape_text,
    sized,
    special,
    tensor_elsewhere,
)
from scripts.qualify.task import Task, bench_dtype, bench_shapes, of_family


@dataclass
class Case:
    """One case: its calls come from `build(device)`; what its inputs are is
    described from those calls (``describe``), never typed beside them."""

    name: str
    group: str  # "unsupported" for inputs the contract refuses
    catches: str  # what a broken kernel does that this case exposes
    build: Callable[[str], list[Call]] = field(repr=False)
    numel: int = 0  # elements per input, for the cases that can be large
    launch_plan: Callable[[str], list[Call]] | None = field(default=None, repr=False)
    args: tuple[str, ...] = ()  # the task's argument names, for the words

    @property
    def kind(self) -> str:
        return "unsupported" if self.group == "unsupported" else "kernel"

    @property
    def inputs(self) -> str:
        """Shape, dtype, layout and notes of the calls, for the case table."""
        return _described(self)

    def launch_only(self, device: str, max_numel: int) -> bool:
        """Too large to interpret: on the CPU only the launch is checked."""
        return device == "cpu" and self.launch_plan and self.numel > max_numel

    def calls(self, device: str, max_numel: int) -> list[Call]:
        if self.launch_only(device, max_numel):
            return self.launch_plan(device)
        return self.build(device)

    def mode_on(self, device: str, max_numel: int | None = None) -> str:
        if self.kind == "unsupported":
            return "must raise"
        max_numel = INTERPRETER_MAX_NUMEL if max_numel is None else max_numel
        return "launch only" if self.launch_only(device, max_numel) else "values"


_DESCRIBED: dict[tuple, str] = {}


def _described(case: Case) -> str:
    # Large cases are described from their launch plan (same shape and
    # dtype, no values built); the rest from the calls a CPU run makes.
    # Tasks share case names ("size-1", "float32"), not their builders.
    key = (case.name, case.args, case.build.__qualname__, _cells(case.build))
    if key not in _DESCRIBED:
        plan = case.launch_plan and case.numel > INTERPRETER_MAX_NUMEL
        calls = case.launch_plan("cpu") if plan else case.build("cpu")
        _DESCRIBED[key] = describe(calls, case.args)
    return _DESCRIBED[key]


def _cells(build) -> str:
    """What a builder closes over, as text (its shapes, dtypes, notes)."""
    cells = [c.cell_contents for c in build.__closure__ or ()]
    return repr([getattr(c, "__qualname__", c) for c in cells])


def describe(calls: list[Call], names: tuple[str, ...]) -> str:
    """What a case's calls pass, in words: "(257,) float32: all positive;
    mixed signs", "(64, 37) float32, a column-major, b column-major" for
    arguments `names` a and b."""
    if all(c.mode == "error" for c in calls):
        return "; ".join(c.note for c in calls)
    parts: list[str] = []
    for call in calls:
        if not call.args:
            words = call.note or ("the same inputs again" if call.reuse else "")
            parts.append(f"then {words}")
            continue
        layouts = [layout_text(spec) for spec in call.args]
        first = call.args[0]
        head = f"{shape_text(first['size'])} {dtype_text(first)}"
        sizes = [spec["size"] for spec in call.args]
        if any(size != sizes[0] for size in sizes):  # a matrix product's operands
            shapes = ", ".join(
                f"{name} {shape_text(size)}"
                for name, size in zip(names, sizes, strict=True)
            )
            head = f"{shapes} {dtype_text(first)}"
        if len(set(layouts)) == 1 and layouts[0] and len(layouts) == 2:
            head += f", both {layouts[0]}"
        else:
            for name, layout in zip(names, layouts, strict=True):
                if layout:
                    head += f", {name} {layout}"
        note = f": {call.note}" if call.note else ""
        parts.append(head + note)
    grouped: list[str] = []
    for part, count in runs(parts):
        grouped.append(f"{part} (x{count})" if count > 1 else part)
    parts = grouped
    text = parts[0]
    for part in parts[1:]:
        same_head = part.split(":")[0] == parts[0].split(":")[0]
        text += "; " + (part.split(": ", 1)[1] if same_head and ": " in part else part)
    return text


# The interpreter runs one program instance at a time at about 0.5 ms each
# for 1024 float32 elements: about a second per 2 million elements. Shapes
# above this bound are checked for their launch only on the CPU.
INTERPRETER_MAX_NUMEL = 2**21
PAST_65535_PROGRAMS = 65535 * 1024 + 1


def cases(task: Task | None = None) -> list[Case]:
    """The elementwise-binary family's cases, for `task`'s two inputs."""
    task = task or of_family("elementwise-binary")
    if task.cases in ("rows", "flat"):
        from scripts.qualify import rows  # the one-input families

        family = rows.row_cases if task.cases == "rows" else rows.flat_cases
        return _with_task(family(task), task)
    if task.cases in ("matrix-product", "qkv-causal"):
        from scripts.qualify import products  # the matrix products' families

        family = getattr(products, task.cases.replace("-", "_") + "_cases")
        return _with_task(family(task), task)
    f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
    X, R = task.args[:1], task.args[1:]  # noqa: N806
    both = task.args
    a, b = task.args

    def n(dtype) -> str:
        return str(dtype).removeprefix("torch.")

    def bench_dtype_of(device: str) -> torch.dtype:
        return bench_dtype(device, task)

    shapes, _ = bench_shapes(task)
    kernel = [
        Case(
            name="size-1",
            group="sizes",
            catches="a grid of zero programs; a tail never written",
            build=mixed_and_positive((1,), f32),
        ),
        Case(
            name="size-256",
            group="sizes",
            catches="off-by-one masks at a power of two",
            build=mixed_and_positive((256,), f32),
        ),
        Case(
            name="size-257",
            group="sizes",
            catches="a missing or wrong mask one past a power of two; a "
            "floor-divided grid",
            build=mixed_and_positive((257,), f32),
        ),
        Case(
            name="prime-2d",
            group="sizes",
            catches="block sizes that must divide a dimension",
            build=mixed_and_positive((37, 71), f32),
        ),
        Case(
            name="scalar-0d",
            group="sizes",
            catches="0-d tensors mishandled (shape (1,) returned, or a crash)",
            build=mixed_and_positive((), f32),
        ),
        Case(
            name="empty",
            group="sizes",
            catches="a launch with an empty grid, or a wrong result shape",
            build=one_pair((0, 3), f32, False),
        ),
        Case(
            name="rows-past-65535",
            group="grid",
            catches="one program per row on grid axis 1 or 2 (CUDA allows 65535)",
            build=sized((65537, 2), lambda d: f32),
            numel=65537 * 2,
            launch_plan=plan((65537, 2), lambda d: f32),
        ),
        Case(
            name="programs-past-65535",
            group="grid",
            catches="more than 65535 programs of 1024 elements on axis 1 or 2, or a "
            "grid capped at 65535 (values on a GPU only)",
            build=sized((PAST_65535_PROGRAMS,), lambda d: f32),
            numel=PAST_65535_PROGRAMS,
            launch_plan=plan((PAST_65535_PROGRAMS,), lambda d: f32),
        ),
        Case(
            name="float16",
            group="dtypes",
            catches="float16 loaded or stored as another type",
            build=one_pair((4099,), f16, False),
        ),
        Case(
            name="bfloat16",
            group="dtypes",
            catches="bfloat16 loaded or stored as another type",
            build=one_pair((4099,), bf16, False),
        ),
        Case(
            name="float16-2d",
            group="dtypes",
            catches="an unwritten tail in half precision",
            build=one_pair((33, 129), f16, True),
        ),
        Case(
            name="bfloat16-3d",
            group="dtypes",
            catches="3-d shapes flattened wrongly",
            build=one_pair((3, 5, 257), bf16, True),
        ),
        Case(
            name="transposed",
            group="layouts",
            catches="strides ignored; output layout assumed row-major",
            build=build_transposed,
        ),
        Case(
            name="mixed-layout",
            group="layouts",
            catches="one tensor's strides reused for the other; flat pointer "
            "arithmetic",
            build=build_mixed_layout,
        ),
        Case(
            name="storage-offset",
            group="layouts",
            catches="the storage offset ignored",
            build=build_offset,
        ),
        Case(
            name="stepped-slice",
            group="layouts",
            catches="gaps between elements read as data",
            build=build_stepped,
        ),
        Case(
            name="broadcast-row",
            group="layouts",
            catches="reads past the end of a zero-stride input's storage",
            build=build_broadcast_row,
        ),
        Case(
            name="channels-last",
            group="layouts",
            catches="4-d permuted layouts",
            build=build_channels_last,
        ),
        Case(
            name="nan-inf-float32",
            group="special values",
            catches="NaN turned into a number; inf - inf",
            build=special(f32),
        ),
        Case(
            name="nan-inf-float16",
            group="special values",
            catches="overflow of the float16 sum to inf",
            build=special(f16),
        ),
        Case(
            name="nan-inf-bfloat16",
            group="special values",
            catches="special values in bfloat16",
            build=special(bf16),
        ),
        Case(
            name="five-d",
            group="layouts",
            catches="kernels that handle at most 4 dimensions' strides",
            build=build_five_d,
        ),
        Case(
            name="broadcast-inner",
            group="layouts",
            catches="a broadcast handled only in the leading dimension",
            build=build_broadcast_inner,
        ),
        Case(
            name="tiny-values",
            group="special values",
            catches="small results flushed to zero; inputs recognised by their size",
            build=build_tiny_values,
        ),
        Case(
            name="mid-size",
            group="sizes",
            catches="paths taken only above a size threshold",
            build=sized((MID_NUMEL,), lambda d: torch.float32, positive=False),
            numel=MID_NUMEL,
            launch_plan=plan((MID_NUMEL,), lambda d: torch.float32),
        ),
        Case(
            name="refill-some",
            group="calls",
            catches="results cached on a sample of elements",
            build=build_refill_some,
        ),
        Case(
            name="refill-same-buffers",
            group="calls",
            catches="results cached by pointer, shape or call count",
            build=build_refill,
        ),
        Case(
            name="repeat-bitwise",
            group="calls",
            catches="results that change from call to call "
            "(stochastic rounding, uninitialised scratch)",
            build=build_repeat,
        ),
        Case(
            name="recheck-after-warmup",
            group="calls",
            catches="kernels that go wrong after the first few calls",
            build=build_recheck,
        ),
    ]
    kernel += [
        Case(
            name="broadcast-x",
            group="layouts",
            catches=f"a zero stride handled in {b} only ({a} expanded: a row, "
            "or one value over the whole shape)",
            build=build_broadcast_x,
        ),
        Case(
            name="broadcast-column",
            group="layouts",
            catches="a broadcast handled only along rows (stride 0 in the last "
            "dimension)",
            build=build_broadcast_column,
        ),
        Case(
            name="aliased-inputs",
            group="layouts",
            catches=f"{a} and {b} assumed distinct (one storage read as one "
            "tensor, or written through the other)",
            build=build_aliased,
        ),
        Case(
            name="nan-payloads",
            group="special values",
            catches="NaN recognised by one bit pattern (the one torch makes), "
            "or by its sign",
            build=build_nan_payloads,
        ),
        Case(
            name="widened-bfloat16",
            group="special values",
            catches="float32 inputs whose low halves are zero taken for "
            "bfloat16 values; inputs recognised as views",
            build=build_widened_bf16,
        ),
    ]
    for rows, cols in shapes:
        kernel.append(
            Case(
                name=f"bench-{rows}x{cols}",
                group="benchmark shapes",
                catches="shortcuts taken only at the sizes that are timed",
                build=sized((rows, cols), bench_dtype_of),
                numel=rows * cols,
                launch_plan=plan((rows, cols), bench_dtype_of),
            )
        )
    kernel += size_band_cases(kernel, bench_dtype_of)
    unsupported = [
        Case(
            name="not-a-tensor",
            group="unsupported",
            # "must be a torch.Tensor" is the value's fault, said: the
            # argument's name is what the message must carry.
            catches="TypeError naming the argument (a float would broadcast silently)",
            build=error_build(
                [
                    (
                        input_tensor((4,)),
                        object_spec(2.0),
                        "TypeError",
                        R,
                        f"{b}=2.0",
                        (),
                    ),
                    (
                        object_spec([1.0, 2.0]),
                        input_tensor((2,)),
                        "TypeError",
                        X,
                        f"{a}=[1.0, 2.0]",
                        (),
                    ),
                    (
                        input_tensor((4,)),
                        object_spec(3),
                        "TypeError",
                        R,
                        f"{b}=3",
                        (),
                    ),
                ]
            ),
        ),
        Case(
            name="shape-mismatch",
            group="unsupported",
            catches="ValueError naming the shapes: no broadcasting, no reading "
            "past the shorter input",
            build=error_build(
                [
                    (
                        input_tensor(a),
                        input_tensor(b, seed=1),
                        "ValueError",
                        both,
                        f"{a} + {b}",
                        shape_spellings(a, b),
                    )
                    for a, b in (
                        ((4, 6), (6,)),
                        ((4, 6), (6, 4)),
                        ((2, 3, 4), (3, 2, 4)),
                        ((4,), (1,)),
                    )
                ]
            ),
        ),
        Case(
            name="dtype-mismatch",
            group="unsupported",
            catches="TypeError naming the dtypes: no silent promotion",
            build=error_build(
                [
                    (
                        input_tensor((8,), a),
                        input_tensor((8,), b),
                        "TypeError",
                        both,
                        f"{n(a)} + {n(b)}",
                        (n(a), n(b)),
                    )
                    for a, b in ((f32, f16), (bf16, f32))
                ]
            ),
        ),
        Case(
            name="unsupported-dtype",
            group="unsupported",
            catches="TypeError naming the dtype: only float32, float16, bfloat16",
            build=error_build(
                [
                    (
                        input_tensor((8,), dtype),
                        input_tensor((8,), dtype),
                        "TypeError",
                        both,
                        n(dtype),
                        (n(dtype),),
                    )
                    for dtype in (
                        torch.float64,
                        torch.int32,
                        torch.bool,
                        torch.int64,
                        torch.uint8,
                        torch.complex64,
                        torch.float8_e4m3fn,
                    )
                ]
            ),
        ),
        Case(
            name="device-mismatch",
            group="unsupported",
            catches="ValueError naming the devices, before any launch",
            build=error_build(
                [
                    (
                        input_tensor((8,)),
                        tensor_elsewhere((8,)),
                        "ValueError",
                        both,
                        f"{b} on another device",
                        ("meta", "cpu"),
                    ),
                ]
            ),
        ),
    ]
    return _with_task(kernel + unsupported, task)


def _with_task(every: list[Case], task: Task) -> list[Case]:
    """The family's cases with the task's argument names and words."""
    for case in every:
        case.args = task.args
        case.catches = task.catches.get(case.name, case.catches)
    return every


#: Sizes interpreted on every CPU run, the corpus's included (2**18).
BAND_VALUES_MAX = 2**18


def case_sizes(case: Case) -> list[int]:
    """Elements per input of each call of a case (from its launch plan when
    it is too large to build here)."""
    if case.name not in _SIZES:
        plan = case.launch_plan and case.numel > INTERPRETER_MAX_NUMEL
        calls = case.launch_plan("cpu") if plan else case.build("cpu")
        _SIZES[case.name] = [math.prod(c.args[0]["size"]) for c in calls if c.args]
    return _SIZES[case.name]


_SIZES: dict[str, list[int]] = {}


def size_band_cases(others: list[Case], bench_dtype_of) -> list[Case]:
    """One size in every power-of-two band up to the largest case that no
    other case reaches: a dispatch on size classes is wrong somewhere a case
    goes. Bands up to BAND_VALUES_MAX get their values checked on every run;
    the larger ones their launches on the CPU, their values on a GPU."""
    sizes = {n for case in others for n in case_sizes(case)}
    missing = bands_missing(sizes, max(sizes))
    small = [n for n in missing if n <= BAND_VALUES_MAX]
    large = [n for n in missing if n > BAND_VALUES_MAX]
    f32 = lambda device: torch.float32  # noqa: E731
    bands = [
        Case(
            name="size-bands",
            group="sizes",
            catches="a size class computed wrong in a band of sizes no other "
            "case reaches",
            build=build_sizes(small, f32, "bands"),
        )
    ]
    if large:
        bands.append(
            Case(
                name="size-bands-large",
                group="sizes",
                catches="a size class launched wrong above the interpreter's "
                "reach (values on a GPU only)",
                build=build_sizes(large, bench_dtype_of, "bands-large"),
                numel=max(large),
                launch_plan=plan_sizes(large, bench_dtype_of),
            )
        )
    return bands


def kernel_cases(task: Task | None = None) -> list[Case]:
    return [c for c in cases(task) if c.kind == "kernel"]


def unsupported_cases(task: Task | None = None) -> list[Case]:
    return [c for c in cases(task) if c.kind == "unsupported"]
