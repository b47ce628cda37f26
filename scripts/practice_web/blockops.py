"""``triton.language``'s memory, reduction and matrix operations for the
page's subset (``language.py`` holds the block type and imports these into
the same namespace): loads and stores that check every active lane against
its storage, sums in numpy's order, scans, ``tl.dot``.
"""

# ruff: noqa: B905  (zips of lists built to one length, in the page's hot loops)

from __future__ import annotations

import builtins

from scripts.practice_web import arith, blocks, dtypes
from scripts.practice_web.blocks import (
    Block,
    Fault,
    OutsideSubset,
    Pointer,
    block,
    cast,
    constexpr,
    convert,
    events,
    plain,
    shape_of,
    values_as,
    zeros,
)
from scripts.practice_web.dtypes import DType, float32, int32
from scripts.practice_web.races import SEMANTICS

# --------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------


def _lanes(pointer, mask, what: str):
    """(places, active) of a pointer block under its mask."""
    if not isinstance(pointer, Block) or not isinstance(pointer.dtype, Pointer):
        raise OutsideSubset(f"{what} through something that is not a pointer "
                            "block (a block pointer, a tensor descriptor)")  # fmt: skip
    if mask is None:
        return pointer.data, None
    mask = block(mask)
    shape = arith.broadcast_shape(pointer.shape, mask.shape)
    if shape != pointer.shape:
        raise ValueError(f"a mask of shape {list(mask.shape)} for pointers of "
                         f"shape {list(pointer.shape)}")  # fmt: skip
    return pointer.data, arith.expand(mask.data, mask.shape, shape)


def _check(memory, places, active, what: str) -> None:
    size = len(memory.values)
    low, high = memory.span
    guard = False
    for i, place in enumerate(places):
        if active is not None and not active[i]:
            continue
        if not 0 <= place < size:
            raise Fault(f"{what} at element {place} of a buffer of {size}: "
                        "outside every tensor")  # fmt: skip
        guard = guard or not low <= place < high
    if guard:
        events.append(("guard", memory, what))


def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False) -> Block:  # fmt: skip
    if boundary_check or padding_option:
        raise OutsideSubset("tl.load with boundary_check (block pointers)")
    places, active = _lanes(pointer, mask, "a load")
    memory, dtype = pointer.memory, pointer.element
    _check(memory, places, active, "a load")
    blocks.current.note("load", memory, places, active)
    values = memory.values
    if active is None:
        return Block([values[p] for p in places], pointer.shape, dtype)
    fill = [0] * len(places)
    if other is not None:
        other = block(other, dtypes.weak_promote(dtype, plain(other))
                      if not isinstance(other, Block) else None)  # fmt: skip
        fill = arith.expand(values_as(other, dtype), other.shape, pointer.shape)
    else:
        fill = convert(fill, int32, dtype)
    data = [values[p] if a else f for p, a, f in zip(places, active, fill)]
    return Block(data, pointer.shape, dtype)


def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy="") -> None:  # fmt: skip
    if boundary_check:
        raise OutsideSubset("tl.store with boundary_check (block pointers)")
    places, active = _lanes(pointer, mask, "a store")
    memory, dtype = pointer.memory, pointer.element
    _check(memory, places, active, "a store")
    value = block(value, dtypes.weak_promote(dtype, plain(value))
                  if not isinstance(value, Block) else None)  # fmt: skip
    data = arith.expand(values_as(value, dtype), value.shape, pointer.shape)
    values = memory.values
    for i, place in enumerate(places):
        if active is None or active[i]:
            values[place] = data[i]
    events.append(("store", memory))
    blocks.current.note("store", memory, places, active)


def atomic_add(pointer, val, mask=None, sem=None, scope=None) -> Block:
    sem = sem.value if isinstance(sem, constexpr) else sem
    if sem not in SEMANTICS:
        named = ", ".join(k for k in SEMANTICS if k)
        raise ValueError(f"sem={sem!r} is not one of Triton's: {named}")
    places, active = _lanes(pointer, mask, "an atomic add")
    memory, dtype = pointer.memory, pointer.element
    _check(memory, places, active, "an atomic add")
    blocks.current.note("atomic", memory, places, active, sem)
    val = block(val, dtypes.weak_promote(dtype, plain(val))
                if not isinstance(val, Block) else None)  # fmt: skip
    data = arith.expand(values_as(val, dtype), val.shape, pointer.shape)
    rounding = dtypes.rounder(dtype)
    old = []
    for i, place in enumerate(places):
        old.append(memory.values[place])
        if active is None or active[i]:
            memory.values[place] = rounding([memory.values[place] + data[i]])[0]
    kind = "fadd" if dtype.kind == "float" else "add"
    events.append(("atomic", memory, kind, dtype.kind == "float"))
    return Block(old, pointer.shape, dtype)


# --------------------------------------------------------------------------
# Reductions, scans, shapes, dot
# --------------------------------------------------------------------------


def _axis(x: Block, axis):
    axis = plain(axis) if axis is not None else None
    if axis is None:
        return None
    axis = int(axis)
    if not -len(x.shape) <= axis < len(x.shape):
        raise ValueError(f"axis {axis} of a block of shape {list(x.shape)}")
    return axis % len(x.shape)


def _lines(x: Block, axis: int):
    """The values along `axis`, one list per position of the other axes."""
    shape = x.shape
    strides = arith.strides_of(shape)
    rest = [e for i, e in enumerate(shape) if i != axis]
    rest_strides = [s for i, s in enumerate(strides) if i != axis]
    starts = arith.offsets(rest, rest_strides)
    return [
        [x.data[s + k * strides[axis]] for k in range(shape[axis])] for s in starts
    ], rest


def _reduce(x, axis, keep_dims, combine, name):
    x = block(x)
    axis = _axis(x, axis)
    if axis is None:
        value = combine(x.data, x.dtype, True)
        shape = (1,) * len(x.shape) if keep_dims else ()
        return Block([value], shape, _reduced_dtype(x.dtype, name))
    lines, rest = _lines(x, axis)
    last = axis == len(x.shape) - 1
    data = [combine(line, x.dtype, last) for line in lines]
    shape = list(x.shape)
    if keep_dims:
        shape[axis] = 1
    else:
        shape.pop(axis)
    return Block(data, shape, _reduced_dtype(x.dtype, name))


def _reduced_dtype(dtype: DType, name: str) -> DType:
    if name == "sum" and dtype.kind in ("int", "uint", "bool") and dtype.bits < 32:
        return int32  # Triton sums narrow integers in int32
    return dtype


def _sum_line(values, dtype, contiguous):
    if dtype.kind != "float":
        return dtypes.wrap(
            builtins_sum(values), builtins.max(dtype.bits, 32), dtype.kind != "uint"
        )
    rounding = dtypes.rounder(dtype)
    one = lambda v: rounding([v])[0]  # noqa: E731
    if contiguous:
        return arith.pairwise_sum(values, one)
    total = values[0]
    for v in values[1:]:
        total = one(total + v)
    return total


def _max_line(values, dtype, contiguous):
    best = values[0]
    for v in values[1:]:
        best = arith.maximum(best, v)
    return best


def _min_line(values, dtype, contiguous):
    best = values[0]
    for v in values[1:]:
        best = arith.minimum(best, v)
    return best


builtins_sum = builtins.sum


def sum(input, axis=None, keep_dims=False, dtype=None):  # noqa: A001
    if dtype is not None:
        input = cast(input, dtype)
    return _reduce(input, axis, keep_dims, _sum_line, "sum")


def max(input, axis=None, return_indices=False, keep_dims=False):  # noqa: A001
    if return_indices:
        raise OutsideSubset("tl.max(..., return_indices=True)")
    return _reduce(input, axis, keep_dims, _max_line, "max")


def min(input, axis=None, return_indices=False, keep_dims=False):  # noqa: A001
    if return_indices:
        raise OutsideSubset("tl.min(..., return_indices=True)")
    return _reduce(input, axis, keep_dims, _min_line, "min")


def cumsum(input, axis=0, reverse=False, dtype=None):
    if reverse:
        raise OutsideSubset("tl.cumsum(..., reverse=True)")
    x = cast(input, dtype) if dtype is not None else block(input)
    axis = _axis(x, axis)
    lines, _ = _lines(x, axis)
    rounding = dtypes.rounder(_reduced_dtype(x.dtype, "sum"))
    scanned = []
    for line in lines:
        total, out = 0, []
        for v in line:
            total = rounding([total + v])[0]
            out.append(total)
        scanned.append(out)
    # Put the scanned lines back in row-major order.
    strides = arith.strides_of(x.shape)
    rest = [e for i, e in enumerate(x.shape) if i != axis]
    rest_strides = [s for i, s in enumerate(strides) if i != axis]
    data = [None] * len(x.data)
    for start, line in zip(arith.offsets(rest, rest_strides), scanned):
        for k, v in enumerate(line):
            data[start + k * strides[axis]] = v
    return Block(data, x.shape, _reduced_dtype(x.dtype, "sum"))


def trans(x, *dims) -> Block:
    x = block(x)
    if len(x.shape) != 2 or (dims and tuple(dims) not in ((1, 0), ((1, 0),))):
        raise OutsideSubset(f"tl.trans of a block of shape {list(x.shape)}")
    rows, cols = x.shape
    return Block([x.data[r * cols + c] for c in range(cols) for r in range(rows)],
                 (cols, rows), x.dtype)  # fmt: skip


def reshape(x, *shape, can_reorder=False) -> Block:
    x = block(x)
    shape = shape_of(
        shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    )
    if arith.numel(shape) != len(x.data):
        raise ValueError(f"cannot reshape {list(x.shape)} to {list(shape)}")
    return Block(x.data, shape, x.dtype)


def dot(a, b, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=float32) -> Block:  # fmt: skip
    a, b = block(a), block(b)
    if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"tl.dot of shapes {list(a.shape)} and {list(b.shape)}")
    if a.dtype.kind != "float" or b.dtype.kind != "float":
        raise OutsideSubset(f"tl.dot of {a.dtype} blocks")
    precision = input_precision or ("ieee" if allow_tf32 is False else "tf32")
    if float32 in (a.dtype, b.dtype):
        events.append(("dot", str(getattr(precision, "value", precision)).lower()))
    (m, k), n = a.shape, b.shape[1]
    acc = zeros((m, n), out_dtype) if acc is None else block(acc)
    products = arith.matmul(a.data, b.data, m, k, n)
    rounding = dtypes.rounder(acc.dtype)
    data = rounding([p + q for p, q in zip(rounding(products), acc.data)])
    return Block(data, (m, n), acc.dtype)
