"""How the cases' inputs are built (used by ``scripts/qualify/cases.py``).

The parent builds every input, as plain CPU tensors described by their
storage (``{"base", "size", "stride", "offset"}``), so the child can rebuild
the exact layout on the device under test and the parent keeps a pristine
copy for the reference. Cases larger than the interpreter can run in time
have a second form, the launch plan: inputs the candidate never reads,
launches recorded, programs skipped.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import torch

from kernels.inputs import nonzero_randn, seed_for
from snippets.kernel_correctness_contracts import adversarial as adv


def random_values(shape, dtype, seed, positive=False) -> torch.Tensor:
    """Non-zero normal values on the CPU (the parent builds every input)."""
    return nonzero_randn(shape, dtype, "cpu", seed=seed, positive=positive)


@dataclass
class Call:
    """One call of the candidate, with what the parent needs to judge it."""

    mode: str  # "values", "plan" (launch only) or "error"
    args: tuple[dict, ...] = ()  # the child's input specs, in order (): reuse
    reuse: str | None = None  # "same" tensors again, or "refill" them
    refill: tuple | None = None  # new values for a refill
    expect_error: str | None = None  # exception type name, for "error" calls
    expect_names: tuple[str, ...] = ()  # argument the message must name
    expect_values: tuple[str, ...] = ()  # the wrong value, one of its spellings
    note: str = ""
    out_size: tuple[int, ...] | None = None  # the result's, if not input 1's

    def child_spec(self) -> dict:
        spec = {}
        if self.args:
            spec = {"args": [_public(a) for a in self.args]}
        if self.refill is not None:
            spec["refill"] = list(self.refill)
        return spec


def _public(spec: dict) -> dict:
    return {k: v for k, v in spec.items() if not k.startswith("_")}


#: The seed of the run being built (None: the fixed seeds of earlier runs).
_RUN_SEED: list[int | None] = [None]


@contextlib.contextmanager
def seeded(seed: int | None):
    """Inside the block, every case draws its values from `seed` too, so a
    candidate cannot know its inputs in advance; the verdict prints the seed
    so the run can be replayed."""
    _RUN_SEED.append(seed)
    try:
        yield
    finally:
        _RUN_SEED.pop()


def case_seed(*parts) -> int:
    run = _RUN_SEED[-1]
    return seed_for(*parts) if run is None else seed_for(run, *parts)


def tensor_spec(layout: dict, device: str | None = None) -> dict:
    spec = {"kind": "strided", **layout}
    if device:
        spec["device"] = device
    return spec


def values_call(x_layout: dict, r_layout: dict, note: str = "") -> Call:
    return Call("values", (tensor_spec(x_layout), tensor_spec(r_layout)), note=note)


def pair(shape, dtype, name, positive=False, note="") -> Call:
    """Fresh contiguous random inputs."""
    x = random_values(shape, dtype, case_seed(name, "x", positive), positive)
    r = random_values(shape, dtype, case_seed(name, "r", positive), positive)
    return values_call(adv.contiguous(x), adv.contiguous(r), note)


def mixed_and_positive(shape, dtype):
    def build(device, name=None):
        # All positive first: an element never written cannot match. The
        # second pair is allocated by the child, not a view (issue 36).
        return [
            pair(shape, dtype, (shape, dtype), True, "all positive"),
            fresh_pair(shape, dtype, (shape, dtype), False, "mixed signs"),
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
        return [Call("plan", (empty, dict(empty)), note="launch plan only")]

    return build


def _filler(count, dtype, seed):
    return random_values((count,), dtype, seed) * 7  # unlike the inputs


def build_transposed(device):
    shape, dtype = (64, 37), torch.float32
    calls = []
    for positive in (False, True):
        x = random_values(shape, dtype, case_seed("t", "x", positive), positive)
        r = random_values(shape, dtype, case_seed("t", "r", positive), positive)
        note = "all positive" if positive else "mixed signs"
        calls.append(values_call(adv.transposed(x), adv.transposed(r), note))
    return calls


def build_mixed_layout(device):
    shape, dtype = (45, 67), torch.float16
    calls = []
    for positive in (False, True):
        x = random_values(shape, dtype, case_seed("m", "x", positive), positive)
        r = random_values(shape, dtype, case_seed("m", "r", positive), positive)
        note = "all positive" if positive else "mixed signs"
        calls.append(values_call(adv.transposed(x), adv.contiguous(r), note))
    return calls


def build_offset(device):
    shape, dtype = (29, 31), torch.bfloat16
    x = random_values(shape, dtype, case_seed("o", "x"), True)
    r = random_values(shape, dtype, case_seed("o", "r"), True)
    fill = _filler(64, dtype, case_seed("o", "f"))
    return [values_call(adv.with_offset(x, 7, fill), adv.with_offset(r, 13, fill))]


def build_stepped(device):
    shape, dtype = (23, 41), torch.float32
    x = random_values(shape, dtype, case_seed("s", "x"), True)
    r = random_values(shape, dtype, case_seed("s", "r"), True)
    fill = _filler(23 * 41 * 3, dtype, case_seed("s", "f"))
    return [values_call(adv.stepped(x, 2, fill), adv.stepped(r, 3, fill))]


def build_broadcast_row(device):
    rows, cols, dtype = 50, 37, torch.float32
    x = random_values((rows, cols), dtype, case_seed("b", "x"), True)
    row = random_values((cols,), dtype, case_seed("b", "r"), True)
    return [values_call(adv.contiguous(x), adv.broadcast_rows(row, rows))]


def build_channels_last(device):
    shape, dtype = (2, 3, 5, 7), torch.float16
    calls = []
    for positive in (False, True):
        x = random_values(shape, dtype, case_seed("c", "x", positive), positive)
        r = random_values(shape, dtype, case_seed("c", "r", positive), positive)
        note = "all positive" if positive else "mixed signs"
        calls.append(values_call(adv.channels_last(x), adv.contiguous(r), note))
    return calls


def special(dtype):
    def build(device):
        x, r = adv.with_special_values(1031, dtype, case_seed("special", str(dtype)))
        return [values_call(adv.contiguous(x), adv.contiguous(r), "NaN, ±Inf")]

    return build


def build_refill(device):
    shape, dtype = (1000,), torch.float32
    first = pair(shape, dtype, "refill-1", True, "first values")
    new_x = random_values(shape, dtype, case_seed("refill-2", "x"), True)
    new_r = random_values(shape, dtype, case_seed("refill-2", "r"), True)
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
    new_x = first.args[0]["base"].clone()
    new_r = first.args[1]["base"].clone()
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
    x = random_values(shape, dtype, case_seed("5d", "x"))
    r = random_values(shape, dtype, case_seed("5d", "r"))
    # x permuted in memory: a kernel that handles only up to 4-d strides fails
    return [
        values_call(
            adv.strided(
                x.permute(4, 3, 2, 1, 0).contiguous(), shape, (1, 2, 6, 12, 60)
            ),
            adv.contiguous(r),
            "mixed signs",
        )
    ]


def build_broadcast_inner(device):
    """Stride 0 in a non-leading dimension: input 2 (8, 1, 33) expanded to
    (8, 5, 33), its middle dimension repeated."""
    dtype = torch.float32
    x = random_values((8, 5, 33), dtype, case_seed("bi", "x"))
    r = random_values((8, 33), dtype, case_seed("bi", "r"))
    return [values_call(adv.contiguous(x), adv.strided(r, (8, 5, 33), (33, 0, 1)))]


def build_tiny_values(device):
    """Magnitudes from 1e-30 to 1e-3 (normal float32 numbers): results that
    are flushed to zero below a threshold, or inputs fingerprinted by size."""
    shape, dtype = (2051,), torch.float32
    exponents = torch.linspace(-30, -3, shape[0], dtype=torch.float64)
    scale = (10.0**exponents).to(dtype)
    x = random_values(shape, dtype, case_seed("tiny", "x")) * scale
    r = random_values(shape, dtype, case_seed("tiny", "r")) * scale * 0.5
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
    """pairs: (input 1 factory, input 2 factory, error type, names, note, and
    the spellings of the wrong value, one of which the message must show)."""

    def build(device):
        calls = []
        for make_x, make_r, error, names, note, values in pairs:
            calls.append(
                Call(
                    "error",
                    (make_x(device), make_r(device)),
                    expect_error=error,
                    expect_names=names,
                    expect_values=values,
                    note=note,
                )
            )
        return calls

    return build


def shape_spellings(*shapes) -> tuple[str, ...]:
    """How a message may show a shape: (4, 6), [4, 6] or torch.Size([4, 6])."""
    return tuple(t for s in shapes for t in (str(tuple(s)), str(list(s))))


def input_tensor(shape, dtype=torch.float32, device=None, seed=0):
    """An input factory: a contiguous tensor spec, optionally on `device`."""

    def make(_device):
        values = random_values(shape, torch.float32, seed).to(dtype)
        return tensor_spec(adv.contiguous(values), device)

    return make


def object_spec(value):
    return lambda _device: {"kind": "object", "value": value}


def _other_device(device):
    """A device that is not the one under test: a GPU run puts input 2 on
    the CPU; a CPU run puts it on PyTorch's `meta` device (no memory)."""
    return "meta" if device == "cpu" else "cpu"


def tensor_elsewhere(shape):
    def make(device):
        values = random_values(shape, torch.float32, 5)
        return tensor_spec(adv.contiguous(values), _other_device(device))

    return make


# --------------------------------------------------------------------------
# Issue 36: inputs a candidate could not have planned for
# --------------------------------------------------------------------------


def fresh(layout: dict) -> dict:
    """A contiguous input the child allocates itself (torch.empty, then its
    values copied in), not a view made with as_strided: a candidate cannot
    tell the evaluator's inputs from a model's by asking whether they are
    views."""
    return {**tensor_spec(layout), "fresh": True}


def fresh_pair(shape, dtype, name, positive=False, note="") -> Call:
    x = random_values(shape, dtype, case_seed(name, "x", positive), positive)
    r = random_values(shape, dtype, case_seed(name, "r", positive), positive)
    specs = (fresh(adv.contiguous(x)), fresh(adv.contiguous(r)))
    return Call("values", specs, note=note)


def build_broadcast_x(device):
    """A zero stride in input 1, not only in input 2: it is a row expanded over the
    rows, then x a single value expanded over the whole shape."""
    rows, cols, dtype = 19, 43, torch.float32
    row = random_values((cols,), dtype, case_seed("bx", "row"))
    one = random_values((1,), dtype, case_seed("bx", "one"), True)
    r1 = random_values((rows, cols), dtype, case_seed("bx", "r1"))
    r2 = random_values((rows, cols), dtype, case_seed("bx", "r2"))
    return [
        values_call(adv.broadcast_rows(row, rows), adv.contiguous(r1), "x a row"),
        values_call(
            adv.strided(one, (rows, cols), (0, 0)),
            adv.contiguous(r2),
            "x one value expanded",
        ),
    ]


def build_broadcast_column(device):
    """A zero stride in the last dimension: input 2 a column (one value per
    row) expanded along each row, as a per-row bias is."""
    rows, cols, dtype = 41, 23, torch.float32
    x = random_values((rows, cols), dtype, case_seed("bc", "x"))
    column = random_values((rows,), dtype, case_seed("bc", "c"))
    return [
        values_call(
            adv.contiguous(x), adv.strided(column, (rows, cols), (1, 0)), "a column"
        )
    ]


def build_aliased(device):
    """Input 1 and input 2 the same tensor, then two overlapping views of one
    storage (input 2 starts 5 elements after input 1)."""
    n, dtype = 1029, torch.float32
    same = random_values((n,), dtype, case_seed("alias", "same"))
    spec = tensor_spec(adv.contiguous(same))
    storage = random_values((n + 5,), dtype, case_seed("alias", "views"))
    x = tensor_spec(adv.strided(storage, (n,), (1,), 0))
    second = {**tensor_spec(adv.strided(storage, (n,), (1,), 5)), "storage": 0}
    second["base"] = x["base"]  # one storage, two views of it
    return [
        Call(
            "values",
            (spec, {**spec, "storage": 0, "same": True}),
            note="the same tensor twice",
        ),
        Call("values", (x, second), note="two overlapping views of one storage"),
    ]


def nan_patterns(dtype) -> list[int]:
    """Bit patterns of NaNs other than the one torch makes: both signs,
    quiet and signalling, small and full payloads."""
    if dtype == torch.float32:
        return [0x7FC00001, 0x7F800001, 0xFFC00000, 0xFFFFFFFF, 0x7FFFFFFF, 0xFF800123]
    if dtype == torch.float16:
        return [0x7E01, 0x7C01, 0xFE00, 0xFFFF, 0x7FFF, 0xFC05]
    return [0x7FC1, 0x7F81, 0xFFC0, 0xFFFF, 0x7FFF, 0xFF83]  # bfloat16


def with_nan_payloads(numel, dtype, seed) -> tuple[torch.Tensor, torch.Tensor]:
    """Random inputs with non-canonical NaNs in input 1, in input 2 and in both,
    spread through the tensor (the tail of a block included)."""
    x = random_values((numel,), dtype, seed)
    r = random_values((numel,), dtype, seed + 1)
    ints = {4: torch.int32, 2: torch.int16}[x.element_size()]
    width = 8 * x.element_size()
    patterns = nan_patterns(dtype)
    places = torch.linspace(0, numel - 1, 3 * len(patterns)).round().long().tolist()
    for i, where in enumerate(places):
        bits = patterns[i % len(patterns)]
        value = torch.tensor([bits - (1 << width) * (bits >> (width - 1))], dtype=ints)
        target = (x, r, None)[i // len(patterns)]
        for t in (x, r) if target is None else (target,):
            t.view(ints)[where] = value
    return x, r


def build_nan_payloads(device):
    """NaNs of every sign and payload, float32 and bfloat16: the contract
    asks for a NaN out wherever one comes in (any payload, any sign)."""
    calls = []
    for dtype in (torch.float32, torch.bfloat16):
        x, r = with_nan_payloads(1031, dtype, case_seed("nan-payload", str(dtype)))
        calls.append(
            values_call(adv.contiguous(x), adv.contiguous(r), "NaN payloads and signs")
        )
    return calls


def build_widened_bf16(device):
    """float32 inputs whose values are bfloat16 values widened (the low 16
    bits zero), as a model cast up from bfloat16 passes them; fresh
    allocations, not views."""
    shape = (3, 1367)
    calls = []
    for positive in (True, False):
        x = random_values(
            shape, torch.bfloat16, case_seed("wide", "x", positive), positive
        )
        r = random_values(
            shape, torch.bfloat16, case_seed("wide", "r", positive), positive
        )
        note = "all positive" if positive else "mixed signs"
        calls.append(
            Call(
                "values",
                (fresh(adv.contiguous(x.float())), fresh(adv.contiguous(r.float()))),
                note=f"widened bfloat16, {note}",
            )
        )
    return calls


def bands_missing(covered: set[int], largest: int) -> list[int]:
    """One size in each power-of-two band [2**k, 2**(k+1)) up to `largest`
    that no size in `covered` falls in: 2**k + 2**(k // 2) + 1 (odd, and
    not a multiple of any block size)."""
    bands = {n.bit_length() for n in covered if n > 0}
    sizes = []
    for k in range(largest.bit_length()):
        if k + 1 not in bands:
            size = (1 << k) + (1 << (k // 2)) + 1
            sizes.append(min(size, (2 << k) - 1))
    return sizes


def build_sizes(sizes, dtype_for, name):
    def build(device):
        dtype = dtype_for(device)
        return [
            pair((n,), dtype, (name, n), True, "all positive" if i == 0 else "")
            for i, n in enumerate(sizes)
        ]

    return build


def plan_sizes(sizes, dtype_for):
    def build(device):
        calls = []
        for i, n in enumerate(sizes):
            empty = {"kind": "empty", "size": [n], "dtype": str(dtype_for(device))}
            note = "launch plan only" if i == 0 else ""
            calls.append(Call("plan", (empty, dict(empty)), note=note))
        return calls

    return build


# --------------------------------------------------------------------------
# Words for the case table (``cases.describe``)
# --------------------------------------------------------------------------


def runs(items: list[str]) -> list[tuple[str, int]]:
    runs: list[tuple[str, int]] = []
    for item in items:
        if runs and runs[-1][0] == item:
            runs[-1] = (item, runs[-1][1] + 1)
        else:
            runs.append((item, 1))
    return runs


def shape_text(size) -> str:
    dims = [f"{d:_}" if d >= 100_000 else str(d) for d in size]
    return "(" + ", ".join(dims) + ("," if len(size) == 1 else "") + ")"


def dtype_text(spec: dict) -> str:
    dtype = spec["base"].dtype if "base" in spec else spec["dtype"]
    return str(dtype).removeprefix("torch.")


def layout_text(spec: dict) -> str:
    """ "" for row-major; else how the view sits in its storage."""
    if spec.get("kind") != "strided":
        return ""
    if spec.get("fresh"):
        return "fresh (not views)"
    size, stride, offset = spec["size"], list(spec["stride"]), spec["offset"]
    words = []
    row_major = [math.prod(size[i + 1 :]) for i in range(len(size))]
    zero = [
        i
        for i, (n, st) in enumerate(zip(size, stride, strict=True))
        if st == 0 and n > 1
    ]
    if zero:
        words.append("stride 0 in dimension " + ", ".join(map(str, zero)))
    elif len(size) == 2 and stride == [1, size[0]]:
        words.append("column-major")
    elif stride != row_major and sorted(stride, reverse=True) == stride:
        words.append(f"strides {tuple(stride)} (gaps between elements)")
    elif stride != row_major:
        words.append(f"strides {tuple(stride)} (permuted in memory)")
    if offset:
        words.append(f"starting {offset} elements into its storage")
    return ", ".join(words)
