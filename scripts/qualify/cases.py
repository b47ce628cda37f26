"""The cases of the qualification (used by ``scripts/qualify/evaluator.py``).

Each case is a list of calls of the candidate. The parent builds every input
here, as plain CPU tensors described by their storage (``{"base", "size",
"stride", "offset"}``), so the child can rebuild the exact layout on the
device under test and the parent keeps a pristine copy for the reference.
Cases larger than the interpreter can run in time have a second form, the
launch plan: inputs the candidate never reads, launches recorded, programs
skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from kernels.inputs import nonzero_randn, seed_for
from kernels.residual_add_relu import DESCRIPTOR
from snippets.kernel_correctness_contracts import adversarial as adv

#: Where the benchmark shapes and dtype come from, as the pages name it.
BENCH_SOURCE = "kernels/residual_add_relu.py"


def random_values(shape, dtype, seed, positive=False) -> torch.Tensor:
    """Non-zero normal values on the CPU (the parent builds every input)."""
    return nonzero_randn(shape, dtype, "cpu", seed=seed, positive=positive)


@dataclass
class Call:
    """One call of the candidate, with what the parent needs to judge it."""

    mode: str  # "values", "plan" (launch only) or "error"
    x: dict | None = None  # the child's input specs (None: reuse)
    residual: dict | None = None
    reuse: str | None = None  # "same" tensors again, or "refill" them
    refill: tuple | None = None  # new values for a refill
    expect_error: str | None = None  # exception type name, for "error" calls
    expect_names: tuple[str, ...] = ()  # argument the message must name
    note: str = ""

    def child_spec(self) -> dict:
        spec = {}
        if self.x is not None:
            spec = {"x": _public(self.x), "residual": _public(self.residual)}
        if self.refill is not None:
            spec["refill"] = list(self.refill)
        return spec


def _public(spec: dict) -> dict:
    return {k: v for k, v in spec.items() if not k.startswith("_")}


@dataclass
class Case:
    name: str
    group: str
    kind: str  # "kernel" or "unsupported"
    inputs: str  # shape, dtype and layout, for the case table
    catches: str  # what a broken kernel does that this case exposes
    build: Callable[[str], list[Call]] = field(repr=False)
    numel: int = 0  # elements per input, for the cases that can be large
    launch_plan: Callable[[str], list[Call]] | None = field(default=None, repr=False)

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


def _seed(*parts) -> int:
    return seed_for(*parts)


def tensor_spec(layout: dict, device: str | None = None) -> dict:
    spec = {"kind": "strided", **layout}
    if device:
        spec["device"] = device
    return spec


def values_call(x_layout: dict, r_layout: dict, note: str = "") -> Call:
    return Call("values", tensor_spec(x_layout), tensor_spec(r_layout), note=note)


def pair(shape, dtype, name, positive=False, note="") -> Call:
    """Fresh contiguous random inputs."""
    x = random_values(shape, dtype, _seed(name, "x", positive), positive)
    r = random_values(shape, dtype, _seed(name, "r", positive), positive)
    return values_call(adv.contiguous(x), adv.contiguous(r), note)


def mixed_and_positive(shape, dtype):
    def build(device, name=None):
        # All positive first: an element never written cannot match.
        return [
            pair(shape, dtype, (shape, dtype), True, "all positive"),
            pair(shape, dtype, (shape, dtype), False, "mixed signs"),
        ]

    return build


def one_pair(shape, dtype, positive):
    def build(device):
        note = "all positive" if positive else "mixed signs"
        return [pair(shape, dtype, (shape, dtype, "one"), positive, note)]

    return build


def sized(shape, dtype_for, positive=True):
    """Fresh inputs of a (possibly large) shape, the dtype chosen per device."""

    def build(device):
        dtype = dtype_for(device)
        note = "all positive" if positive else "mixed signs"
        return [pair(shape, dtype, (shape, "sized"), positive, note)]

    return build


def plan(shape, dtype_for):
    """Inputs never read (torch.empty): the launch is recorded, its programs
    are not run."""

    def build(device):
        empty = {"kind": "empty", "size": list(shape), "dtype": str(dtype_for(device))}
        return [Call("plan", empty, dict(empty), note="launch plan only")]

    return build


def _filler(count, dtype, seed):
    return random_values((count,), dtype, seed) * 7  # unlike the inputs


def build_transposed(device):
    shape, dtype = (64, 37), torch.float32
    calls = []
    for positive in (False, True):
        x = random_values(shape, dtype, _seed("t", "x", positive), positive)
        r = random_values(shape, dtype, _seed("t", "r", positive), positive)
        note = "all positive" if positive else "mixed signs"
        calls.append(values_call(adv.transposed(x), adv.transposed(r), note))
    return calls


def build_mixed_layout(device):
    shape, dtype = (45, 67), torch.float16
    calls = []
    for positive in (False, True):
        x = random_values(shape, dtype, _seed("m", "x", positive), positive)
        r = random_values(shape, dtype, _seed("m", "r", positive), positive)
        note = "x transposed, residual row-major"
        calls.append(values_call(adv.transposed(x), adv.contiguous(r), note))
    return calls


def build_offset(device):
    shape, dtype = (29, 31), torch.bfloat16
    x = random_values(shape, dtype, _seed("o", "x"), True)
    r = random_values(shape, dtype, _seed("o", "r"), True)
    fill = _filler(64, dtype, _seed("o", "f"))
    return [values_call(adv.with_offset(x, 7, fill), adv.with_offset(r, 13, fill))]


def build_stepped(device):
    shape, dtype = (23, 41), torch.float32
    x = random_values(shape, dtype, _seed("s", "x"), True)
    r = random_values(shape, dtype, _seed("s", "r"), True)
    fill = _filler(23 * 41 * 3, dtype, _seed("s", "f"))
    return [values_call(adv.stepped(x, 2, fill), adv.stepped(r, 3, fill))]


def build_broadcast_row(device):
    rows, cols, dtype = 50, 37, torch.float32
    x = random_values((rows, cols), dtype, _seed("b", "x"), True)
    row = random_values((cols,), dtype, _seed("b", "r"), True)
    return [values_call(adv.contiguous(x), adv.broadcast_rows(row, rows))]


def build_channels_last(device):
    shape, dtype = (2, 3, 5, 7), torch.float16
    calls = []
    for positive in (False, True):
        x = random_values(shape, dtype, _seed("c", "x", positive), positive)
        r = random_values(shape, dtype, _seed("c", "r", positive), positive)
        note = "x channels-last, residual row-major"
        calls.append(values_call(adv.channels_last(x), adv.contiguous(r), note))
    return calls


def special(dtype):
    def build(device):
        x, r = adv.with_special_values(1031, dtype, _seed("special", str(dtype)))
        return [values_call(adv.contiguous(x), adv.contiguous(r), "NaN, ±Inf")]

    return build


def build_refill(device):
    shape, dtype = (1000,), torch.float32
    first = pair(shape, dtype, "refill-1", True, "first values")
    new_x = random_values(shape, dtype, _seed("refill-2", "x"), True)
    new_r = random_values(shape, dtype, _seed("refill-2", "r"), True)
    second = Call(
        "values", reuse="refill", refill=(new_x, new_r), note="same buffers, new values"
    )
    return [first, second]


def build_repeat(device):
    first = pair((2053,), torch.bfloat16, "repeat", False, "first call")
    return [first, Call("values", reuse="same", note="same inputs again")]


def build_refill_some(device):
    """New values in a few places only: a cache keyed on sampled elements
    (first, last, a stride) returns the old answer."""
    shape, dtype = (4099,), torch.float32
    first = pair(shape, dtype, "refill-some", True, "first values")
    new_x = first.x["base"].clone()
    new_r = first.residual["base"].clone()
    changed = torch.arange(1, 4099, 97)  # never the first or the last element
    new_x[changed] = -new_x[changed] - 1.0
    second = Call(
        "values",
        reuse="refill",
        refill=(new_x, new_r),
        note=f"{changed.numel()} of 4099 elements changed",
    )
    return [first, second]


def build_five_d(device):
    shape, dtype = (2, 3, 2, 5, 7), torch.float32
    x = random_values(shape, dtype, _seed("5d", "x"))
    r = random_values(shape, dtype, _seed("5d", "r"))
    # x permuted in memory: a kernel that handles only up to 4-d strides fails
    return [
        values_call(
            adv.strided(
                x.permute(4, 3, 2, 1, 0).contiguous(), shape, (1, 2, 6, 12, 60)
            ),
            adv.contiguous(r),
            "x stored last-dimension-first",
        )
    ]


def build_broadcast_inner(device):
    """Stride 0 in a non-leading dimension: residual (8, 1, 33) expanded to
    (8, 5, 33), its middle dimension repeated."""
    dtype = torch.float32
    x = random_values((8, 5, 33), dtype, _seed("bi", "x"))
    r = random_values((8, 33), dtype, _seed("bi", "r"))
    return [values_call(adv.contiguous(x), adv.strided(r, (8, 5, 33), (33, 0, 1)))]


def build_tiny_values(device):
    """Magnitudes from 1e-30 to 1e-3 (normal float32 numbers): results that
    are flushed to zero below a threshold, or inputs fingerprinted by size."""
    shape, dtype = (2051,), torch.float32
    exponents = torch.linspace(-30, -3, shape[0], dtype=torch.float64)
    scale = (10.0**exponents).to(dtype)
    x = random_values(shape, dtype, _seed("tiny", "x")) * scale
    r = random_values(shape, dtype, _seed("tiny", "r")) * scale * 0.5
    return [values_call(adv.contiguous(x), adv.contiguous(r), "1e-30 to 1e-3")]


#: Between 2**20 and 2**23 elements, interpreted on the CPU (about 0.4 s).
MID_NUMEL = 2**20 + 3


WARM_CALLS = 10


def build_recheck(device):
    shape, dtype = (257,), torch.float32
    calls = [pair(shape, dtype, "warm", False, "warm-up call")]
    calls += [Call("values", reuse="same", note="warm-up call")] * (WARM_CALLS - 1)
    calls.append(pair(shape, dtype, "after", True, "fresh inputs after warm-up"))
    return calls


def error_build(pairs):
    """pairs: (x factory, residual factory, error type, names, note)."""

    def build(device):
        calls = []
        for make_x, make_r, error, names, note in pairs:
            calls.append(
                Call(
                    "error",
                    make_x(device),
                    make_r(device),
                    expect_error=error,
                    expect_names=names,
                    note=note,
                )
            )
        return calls

    return build


def _t(shape, dtype=torch.float32, device=None, seed=0):
    """An input factory: a contiguous tensor spec, optionally on `device`."""

    def make(_device):
        values = random_values(shape, torch.float32, seed).to(dtype)
        return tensor_spec(adv.contiguous(values), device)

    return make


def _obj(value):
    return lambda _device: {"kind": "object", "value": value}


def _other_device(device):
    """A device that is not the one under test: a GPU run puts residual on
    the CPU; a CPU run puts it on PyTorch's `meta` device (no memory)."""
    return "meta" if device == "cpu" else "cpu"


def _t_elsewhere(shape):
    def make(device):
        values = random_values(shape, torch.float32, 5)
        return tensor_spec(adv.contiguous(values), _other_device(device))

    return make


BOTH = ("x", "residual")


def bench_shapes() -> tuple[list[tuple[int, int]], str]:
    """Three shapes from the kernel's descriptor: the smallest of its
    ``full`` profile, its ``quick`` shape, and its awkward (non-power-of-
    two) one. Returns (shapes, the file they come from)."""
    full = [(s["rows"], s["cols"]) for s in DESCRIPTOR.shapes["full"]]
    quick = DESCRIPTOR.shapes["quick"][0]

    def awkward(shape):
        return any(d & (d - 1) for d in shape)

    smallest = min(full, key=lambda s: s[0] * s[1])
    odd = next((s for s in full if awkward(s)), full[-1])
    return [smallest, (quick["rows"], quick["cols"]), odd], BENCH_SOURCE


def bench_dtype(device: str) -> torch.dtype:
    name = DESCRIPTOR.dtype_cpu if device == "cpu" else DESCRIPTOR.dtype_cuda
    return getattr(torch, name)


# The interpreter runs one program instance at a time at about 0.5 ms each
# for 1024 float32 elements: about a second per 2 million elements. Shapes
# above this bound are checked for their launch only on the CPU.
INTERPRETER_MAX_NUMEL = 2**21
PAST_65535_PROGRAMS = 65535 * 1024 + 1


def cases() -> list[Case]:
    f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
    shapes, _ = bench_shapes()
    kernel = [
        Case(
            "size-1",
            "sizes",
            "kernel",
            "(1,) float32, all positive, then mixed signs",
            "a grid of zero programs; a tail never written",
            mixed_and_positive((1,), f32),
        ),
        Case(
            "size-256",
            "sizes",
            "kernel",
            "(256,) float32, positive, mixed",
            "off-by-one masks at a power of two",
            mixed_and_positive((256,), f32),
        ),
        Case(
            "size-257",
            "sizes",
            "kernel",
            "(257,) float32, positive, mixed",
            "a missing or wrong mask one past a power of two; a floor-divided grid",
            mixed_and_positive((257,), f32),
        ),
        Case(
            "prime-2d",
            "sizes",
            "kernel",
            "(37, 71) float32, positive, mixed",
            "block sizes that must divide a dimension",
            mixed_and_positive((37, 71), f32),
        ),
        Case(
            "scalar-0d",
            "sizes",
            "kernel",
            "() float32, positive, mixed",
            "0-d tensors mishandled (shape (1,) returned, or a crash)",
            mixed_and_positive((), f32),
        ),
        Case(
            "empty",
            "sizes",
            "kernel",
            "(0, 3) float32",
            "a launch with an empty grid, or a wrong result shape",
            one_pair((0, 3), f32, False),
        ),
        Case(
            "rows-past-65535",
            "grid",
            "kernel",
            "(65537, 2) float32, positive",
            "one program per row on grid axis 1 or 2 (CUDA allows 65535)",
            sized((65537, 2), lambda d: f32),
            65537 * 2,
            plan((65537, 2), lambda d: f32),
        ),
        Case(
            "programs-past-65535",
            "grid",
            "kernel",
            f"({PAST_65535_PROGRAMS:_},) float32, positive",
            "more than 65535 programs of 1024 elements on axis 1 or 2, or a "
            "grid capped at 65535 (values on a GPU only)",
            sized((PAST_65535_PROGRAMS,), lambda d: f32),
            PAST_65535_PROGRAMS,
            plan((PAST_65535_PROGRAMS,), lambda d: f32),
        ),
        Case(
            "float16",
            "dtypes",
            "kernel",
            "(4099,) float16, mixed signs",
            "float16 loaded or stored as another type",
            one_pair((4099,), f16, False),
        ),
        Case(
            "bfloat16",
            "dtypes",
            "kernel",
            "(4099,) bfloat16, mixed signs",
            "bfloat16 loaded or stored as another type",
            one_pair((4099,), bf16, False),
        ),
        Case(
            "float16-2d",
            "dtypes",
            "kernel",
            "(33, 129) float16, positive",
            "an unwritten tail in half precision",
            one_pair((33, 129), f16, True),
        ),
        Case(
            "bfloat16-3d",
            "dtypes",
            "kernel",
            "(3, 5, 257) bfloat16, positive",
            "3-d shapes flattened wrongly",
            one_pair((3, 5, 257), bf16, True),
        ),
        Case(
            "transposed",
            "layouts",
            "kernel",
            "(64, 37) float32, both inputs column-major (.t())",
            "strides ignored; output layout assumed row-major",
            build_transposed,
        ),
        Case(
            "mixed-layout",
            "layouts",
            "kernel",
            "(45, 67) float16, x column-major, residual row-major",
            "one tensor's strides reused for the other; flat pointer arithmetic",
            build_mixed_layout,
        ),
        Case(
            "storage-offset",
            "layouts",
            "kernel",
            "(29, 31) bfloat16 views starting 7 and 13 elements into their storage",
            "the storage offset ignored",
            build_offset,
        ),
        Case(
            "stepped-slice",
            "layouts",
            "kernel",
            "(23, 41) float32 as wide[:, ::2] and wide[:, ::3]",
            "gaps between elements read as data",
            build_stepped,
        ),
        Case(
            "broadcast-row",
            "layouts",
            "kernel",
            "(50, 37) float32, residual one row with stride 0 (expand)",
            "reads past the end of a zero-stride input's storage",
            build_broadcast_row,
        ),
        Case(
            "channels-last",
            "layouts",
            "kernel",
            "(2, 3, 5, 7) float16, x stored (N, H, W, C)",
            "4-d permuted layouts",
            build_channels_last,
        ),
        Case(
            "nan-inf-float32",
            "special values",
            "kernel",
            "(1031,) float32 with NaN, ±Inf, overflow, signed zeros",
            "a ReLU that turns NaN into 0; inf - inf",
            special(f32),
        ),
        Case(
            "nan-inf-float16",
            "special values",
            "kernel",
            "(1031,) float16, the same pairs",
            "overflow of the float16 sum to inf",
            special(f16),
        ),
        Case(
            "nan-inf-bfloat16",
            "special values",
            "kernel",
            "(1031,) bfloat16, the same pairs",
            "special values in bfloat16",
            special(bf16),
        ),
        Case(
            "five-d",
            "layouts",
            "kernel",
            "(2, 3, 2, 5, 7) float32, x stored last-dimension-first",
            "kernels that handle at most 4 dimensions' strides",
            build_five_d,
        ),
        Case(
            "broadcast-inner",
            "layouts",
            "kernel",
            "(8, 5, 33) float32, residual (8, 1, 33) expanded: stride 0 in the "
            "middle dimension",
            "a broadcast handled only in the leading dimension",
            build_broadcast_inner,
        ),
        Case(
            "tiny-values",
            "special values",
            "kernel",
            "(2051,) float32, magnitudes from 1e-30 to 1e-3",
            "small results flushed to zero; inputs recognised by their size",
            build_tiny_values,
        ),
        Case(
            "mid-size",
            "sizes",
            "kernel",
            f"({MID_NUMEL:_},) float32, mixed signs (between 2**20 and 2**23)",
            "paths taken only above a size threshold",
            sized((MID_NUMEL,), lambda d: torch.float32, positive=False),
            MID_NUMEL,
            plan((MID_NUMEL,), lambda d: torch.float32),
        ),
        Case(
            "refill-some",
            "calls",
            "kernel",
            "(4099,) float32 called, 41 elements changed in place, called again",
            "results cached on a sample of elements",
            build_refill_some,
        ),
        Case(
            "refill-same-buffers",
            "calls",
            "kernel",
            "(1000,) float32 called, refilled in place, called again",
            "results cached by pointer, shape or call count",
            build_refill,
        ),
        Case(
            "repeat-bitwise",
            "calls",
            "kernel",
            "(2053,) bfloat16 called twice on the same inputs",
            "results that change from call to call "
            "(stochastic rounding, uninitialised scratch)",
            build_repeat,
        ),
        Case(
            "recheck-after-warmup",
            "calls",
            "kernel",
            f"(257,) float32: "
            f"{WARM_CALLS} calls as a timing loop would make, then fresh inputs",
            "kernels that go wrong after the first few calls",
            build_recheck,
        ),
    ]
    for rows, cols in shapes:
        kernel.append(
            Case(
                f"bench-{rows}x{cols}",
                "benchmark shapes",
                "kernel",
                f"({rows}, {cols}), the benchmark's dtype, positive",
                "shortcuts taken only at the sizes that are timed",
                sized((rows, cols), bench_dtype),
                rows * cols,
                plan((rows, cols), bench_dtype),
            )
        )
    unsupported = [
        Case(
            "not-a-tensor",
            "unsupported",
            "unsupported",
            "residual = 2.0; x = a list",
            "TypeError naming the argument (a float would broadcast silently)",
            error_build(
                [
                    (_t((4,)), _obj(2.0), "TypeError", ("residual",), "residual=2.0"),
                    (_obj([1.0, 2.0]), _t((2,)), "TypeError", ("x",), "x=[1.0, 2.0]"),
                    (_t((4,)), _obj(3), "TypeError", ("residual",), "residual=3"),
                ]
            ),
        ),
        Case(
            "shape-mismatch",
            "unsupported",
            "unsupported",
            "(4, 6) with (6,), (4, 6) with (6, 4), (2, 3, 4) with (3, 2, 4), "
            "(4,) with a one-element (1,)",
            "ValueError: no broadcasting, no reading past the shorter input",
            error_build(
                [
                    (_t((4, 6)), _t((6,), seed=1), "ValueError", BOTH, "(4, 6) + (6,)"),
                    (
                        _t((4, 6)),
                        _t((6, 4), seed=1),
                        "ValueError",
                        BOTH,
                        "(4, 6) + (6, 4)",
                    ),
                    (
                        _t((2, 3, 4)),
                        _t((3, 2, 4), seed=1),
                        "ValueError",
                        BOTH,
                        "(2, 3, 4) + (3, 2, 4)",
                    ),
                    (_t((4,)), _t((1,), seed=1), "ValueError", BOTH, "(4,) + (1,)"),
                ]
            ),
        ),
        Case(
            "dtype-mismatch",
            "unsupported",
            "unsupported",
            "float32 with float16; bfloat16 with float32",
            "TypeError: no silent promotion",
            error_build(
                [
                    (
                        _t((8,)),
                        _t((8,), torch.float16),
                        "TypeError",
                        BOTH,
                        "float32 + float16",
                    ),
                    (
                        _t((8,), torch.bfloat16),
                        _t((8,)),
                        "TypeError",
                        BOTH,
                        "bfloat16 + float32",
                    ),
                ]
            ),
        ),
        Case(
            "unsupported-dtype",
            "unsupported",
            "unsupported",
            "float64, int32, int64, uint8, bool, complex64 and float8_e4m3fn pairs",
            "TypeError: only float32, float16, bfloat16",
            error_build(
                [
                    (
                        _t((8,), torch.float64),
                        _t((8,), torch.float64),
                        "TypeError",
                        BOTH,
                        "float64",
                    ),
                    (
                        _t((8,), torch.int32),
                        _t((8,), torch.int32),
                        "TypeError",
                        BOTH,
                        "int32",
                    ),
                    (
                        _t((8,), torch.bool),
                        _t((8,), torch.bool),
                        "TypeError",
                        BOTH,
                        "bool",
                    ),
                    *[
                        (_t((8,), dtype), _t((8,), dtype), "TypeError", BOTH, name)
                        for name, dtype in (
                            ("int64", torch.int64),
                            ("uint8", torch.uint8),
                            ("complex64", torch.complex64),
                            ("float8_e4m3fn", torch.float8_e4m3fn),
                        )
                    ],
                ]
            ),
        ),
        Case(
            "device-mismatch",
            "unsupported",
            "unsupported",
            "residual on another device (meta on a CPU run, the CPU on a GPU run)",
            "ValueError before any launch",
            error_build(
                [
                    (_t((8,)), _t_elsewhere((8,)), "ValueError", BOTH, "devices"),
                ]
            ),
        ),
    ]
    return kernel + unsupported


def kernel_cases() -> list[Case]:
    return [c for c in cases() if c.kind == "kernel"]


def unsupported_cases() -> list[Case]:
    return [c for c in cases() if c.kind == "unsupported"]
