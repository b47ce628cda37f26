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
from dataclasses import dataclass

import torch

from kernels.inputs import nonzero_randn, seed_for
from snippets.kernel_correctness_contracts import adversarial as adv

BOTH = ("x", "residual")


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


def _seed(*parts) -> int:
    run = _RUN_SEED[-1]
    return seed_for(*parts) if run is None else seed_for(run, *parts)


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
        note = "all positive" if positive else "mixed signs"
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
        note = "all positive" if positive else "mixed signs"
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
            "mixed signs",
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
