"""``torch`` for the page: the tensor the wrappers and the exercises'
references use, in pure Python. A :class:`Tensor` is a view (shape,
strides, offset, all in elements) of a :class:`Storage` (a flat list and a
dtype); a kernel launch passes the storage and the view's offset, so pointer
arithmetic over strides reaches the elements it would on a GPU.

Arithmetic follows torch: float64 in, float64 out, float32 rounded; anything
this module lacks is refused by name (``language.OutsideSubset``).
"""

# ruff: noqa: B905  (zips of lists built to one length, in the page's hot loops)

from __future__ import annotations

import builtins
import math

from scripts.practice_web import arith, dtypes
from scripts.practice_web.blocks import OutsideSubset, convert
from scripts.practice_web.dtypes import (  # noqa: F401  (torch.float32, ...)
    DType,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

bool = bool_  # noqa: A001  (torch.bool)
half, float, double, long, int = float16, float32, float64, int64, int32  # noqa: A001
_builtin_float, _builtin_int = builtins.float, builtins.int
Size = tuple


class Storage:
    """One allocation: its values, dtype, a name the grader gives it, and
    the span [low, high) of its elements that are data (the rest guard)."""

    def __init__(self, values: list, dtype: DType, name: str = ""):
        self.values, self.dtype, self.name = values, dtype, name
        self.span = (0, len(values))


class device:  # noqa: N801
    def __init__(self, name="cpu"):
        self.type = str(name)

    def __repr__(self) -> str:
        return f"device(type='{self.type}')"


CPU = device("cpu")


def _shape_args(shape) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(_builtin_int(s) for s in shape)


class Tensor:
    def __init__(self, storage: Storage, shape, strides=None, offset: int = 0):
        self.storage = storage
        self.shape = tuple(shape)
        self._strides = (
            tuple(strides) if strides is not None else arith.strides_of(shape)
        )
        self.offset = offset

    # --- what a wrapper asks ---------------------------------------------
    @property
    def dtype(self) -> DType:
        return self.storage.dtype

    device = CPU
    is_cuda = False

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def numel(self) -> int:
        return arith.numel(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    ndim = property(dim)

    def element_size(self) -> int:
        return self.dtype.itemsize

    def is_contiguous(self) -> bool:
        return self.numel() <= 1 or all(
            s == c for s, c, e in zip(self._strides, arith.strides_of(self.shape),
                                      self.shape) if e != 1)  # fmt: skip

    def places(self) -> list[int]:
        return arith.offsets(self.shape, self._strides, self.offset)

    def tolist_flat(self) -> list:
        values = self.storage.values
        return [values[p] for p in self.places()]

    def __repr__(self) -> str:
        head = self.tolist_flat()[:8]
        return f"tensor(shape={list(self.shape)}, dtype={self.dtype}, {head})"

    def __len__(self):
        return self.shape[0]

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise OutsideSubset(f"tensor.{name}")

    def new_empty(self, *shape, dtype=None, device=None, **options) -> Tensor:
        return empty(*shape, dtype=dtype or self.dtype)

    # --- views -------------------------------------------------------------
    def t(self) -> Tensor:
        if len(self.shape) != 2:
            raise ValueError("t() expects a 2-D tensor")
        return Tensor(self.storage, self.shape[::-1], self._strides[::-1], self.offset)

    T = property(t)

    def __getitem__(self, key) -> Tensor:
        key = key if isinstance(key, tuple) else (key,)
        if Ellipsis in key:
            at = key.index(Ellipsis)
            fill = len(self.shape) - (len(key) - 1 - key.count(None))
            key = key[:at] + (slice(None),) * fill + key[at + 1 :]
        if any(isinstance(k, Tensor) for k in key):
            raise OutsideSubset("indexing a tensor with a tensor")
        shape, strides, offset, axis = [], [], self.offset, 0
        for item in key:
            if item is None:
                shape.append(1)
                strides.append(0)
                continue
            extent, stride = self.shape[axis], self._strides[axis]
            axis += 1
            if isinstance(item, slice):
                start, stop, step = item.indices(extent)
                if step <= 0:
                    raise OutsideSubset("a slice with a negative step")
                offset += start * stride
                shape.append(len(range(start, stop, step)))
                strides.append(stride * step)
            else:
                index = _builtin_int(item)
                if not -extent <= index < extent:
                    raise IndexError(
                        f"index {index} is out of bounds for size {extent}"
                    )
                offset += (index % extent) * stride
        shape.extend(self.shape[axis:])
        strides.extend(self._strides[axis:])
        return Tensor(self.storage, shape, strides, offset)

    def __setitem__(self, key, value) -> None:
        self[key].copy_(
            value if isinstance(value, Tensor) else full((), value, self.dtype)
        )

    def view(self, *shape) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], DType):
            raise OutsideSubset("tensor.view(dtype)")
        return self.reshape(*shape)

    def reshape(self, *shape) -> Tensor:
        shape = list(_shape_args(shape))
        if -1 in shape:
            known = arith.numel([s for s in shape if s != -1])
            shape[shape.index(-1)] = self.numel() // known if known else 0
        if arith.numel(shape) != self.numel():
            raise ValueError(f"shape {shape} is invalid for {self.numel()} elements")
        if self.is_contiguous():
            return Tensor(self.storage, shape, None, self.offset)
        return self.contiguous().reshape(*shape)

    flatten = lambda self: self.reshape(-1)  # noqa: E731

    def contiguous(self) -> Tensor:
        if self.is_contiguous():
            return self
        return self.clone()

    def clone(self) -> Tensor:
        return _new(list(self.tolist_flat()), self.shape, self.dtype)

    def to(self, dtype=None, *rest, **options) -> Tensor:
        if isinstance(dtype, (str, device)) or dtype is None:
            return self
        return _new(convert(self.tolist_flat(), self.dtype, dtype), self.shape, dtype)

    def float(self) -> Tensor:
        return self.to(float32)

    def double(self) -> Tensor:
        return self.to(float64)

    def cpu(self) -> Tensor:
        return self

    cuda = cpu

    def item(self):
        if self.numel() != 1:
            raise ValueError("item() of a tensor with more than one element")
        return self.tolist_flat()[0]

    def __float__(self):
        return _builtin_float(self.item())

    def __int__(self):
        return _builtin_int(self.item())

    __index__ = __int__

    def __bool__(self):
        return self.item() != 0

    def tolist(self):
        flat = self.tolist_flat()
        for extent in reversed(self.shape[1:]):
            flat = [flat[i : i + extent] for i in range(0, len(flat), extent)]
        return flat if self.shape else flat[0]

    def data_ptr(self) -> int:
        raise OutsideSubset("tensor.data_ptr()")

    # --- in place ------------------------------------------------------------
    def copy_(self, source) -> Tensor:
        source = as_tensor(source)
        values = arith.expand(convert(source.tolist_flat(), source.dtype, self.dtype),
                              source.shape, self.shape)  # fmt: skip
        for place, value in zip(self.places(), values):
            self.storage.values[place] = value
        return self

    def fill_(self, value) -> Tensor:
        return self.copy_(full((), value, self.dtype))

    def zero_(self) -> Tensor:
        return self.fill_(0)

    # --- arithmetic (what the references and wrappers use) --------------------
    def _binary(self, other, fn, compare=False, reverse=False):
        other = other if isinstance(other, Tensor) else _builtin_float(other) \
            if isinstance(other, builtins.float) else other  # fmt: skip
        if isinstance(other, Tensor):
            dtype = dtypes.promote(self.dtype, other.dtype)
            shape = arith.broadcast_shape(self.shape, other.shape)
            right = arith.expand(other.tolist_flat(), other.shape, shape)
        else:
            dtype = dtypes.weak_promote(self.dtype, other)
            shape = self.shape
            right = [other] * self.numel()
        left = arith.expand(self.tolist_flat(), self.shape, shape)
        if reverse:
            left, right = right, left
        values = [fn(a, b) for a, b in zip(left, right)]
        if compare:
            return _new(values, shape, bool_)
        return _new(dtypes.rounder(dtype)(values), shape, dtype)

    def __add__(self, o):
        return self._binary(o, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, o):
        return self._binary(o, lambda a, b: a - b)

    def __rsub__(self, o):
        return self._binary(o, lambda a, b: a - b, reverse=True)

    def __mul__(self, o):
        return self._binary(o, lambda a, b: a * b)

    __rmul__ = __mul__

    def __truediv__(self, o):
        if self.dtype.kind != "float" and not (
            isinstance(o, Tensor) and o.dtype.kind == "float"
        ):
            return self.to(float32)._binary(o, arith.div)
        return self._binary(o, arith.div)

    def __rtruediv__(self, o):
        return self._binary(o, arith.div, reverse=True)

    def __neg__(self):
        return self._binary(0 if self.dtype.kind != "float" else -0.0,
                            lambda a, b: b - a)  # fmt: skip

    def __lt__(self, o):
        return self._binary(o, lambda a, b: a < b, compare=True)

    def __le__(self, o):
        return self._binary(o, lambda a, b: a <= b, compare=True)

    def __gt__(self, o):
        return self._binary(o, lambda a, b: a > b, compare=True)

    def __ge__(self, o):
        return self._binary(o, lambda a, b: a >= b, compare=True)

    def __eq__(self, o):
        return self._binary(o, lambda a, b: a == b, compare=True)

    def __ne__(self, o):
        return self._binary(o, lambda a, b: a != b, compare=True)

    __hash__ = object.__hash__

    def __and__(self, o):
        return self._binary(o, lambda a, b: a & b)

    def __or__(self, o):
        return self._binary(o, lambda a, b: a | b)

    def __invert__(self):
        if self.dtype is bool_:
            return _new([not v for v in self.tolist_flat()], self.shape, bool_)
        return _new(dtypes.rounder(self.dtype)([~v for v in self.tolist_flat()]),
                    self.shape, self.dtype)  # fmt: skip

    def _map(self, fn) -> Tensor:
        dtype = self.dtype if self.dtype.kind == "float" else float32
        return _new(dtypes.rounder(dtype)([fn(v) for v in self.tolist_flat()]),
                    self.shape, dtype)  # fmt: skip

    def exp(self):
        return self._map(arith.exp)

    def sqrt(self):
        return self._map(arith.sqrt)

    def log(self):
        return self._map(arith.log)

    def abs(self):
        return _new(
            [builtins.abs(v) for v in self.tolist_flat()], self.shape, self.dtype
        )

    def relu(self):
        zero = 0.0 if self.dtype.kind == "float" else 0
        values = [v if v != v or v > 0 else zero for v in self.tolist_flat()]
        return _new(values, self.shape, self.dtype)

    def isnan(self):
        return _new([v != v for v in self.tolist_flat()], self.shape, bool_)

    def isfinite(self):
        return _new([math.isfinite(v) for v in self.tolist_flat()], self.shape, bool_)

    def masked_fill(self, mask, value) -> Tensor:
        fill = arith.expand(mask.tolist_flat(), mask.shape, self.shape)
        return _new([value if m else v for v, m in zip(self.tolist_flat(), fill)],
                    self.shape, self.dtype)  # fmt: skip

    def _lines(self, dim):
        dim = dim % len(self.shape)
        moved = [d for d in range(len(self.shape)) if d != dim] + [dim]
        view = self.permute(*moved)
        extent = self.shape[dim]
        flat = view.tolist_flat()
        return [flat[i : i + extent] for i in range(0, len(flat), extent)], dim

    def permute(self, *dims) -> Tensor:
        dims = _shape_args(dims)
        return Tensor(self.storage, [self.shape[d] for d in dims],
                      [self._strides[d] for d in dims], self.offset)  # fmt: skip

    def _reduce(self, fn, dim=None, keepdim=False) -> Tensor:
        if dim is None:
            return _new([fn(self.tolist_flat())], (), self.dtype)
        lines, dim = self._lines(dim)
        shape = [e for i, e in enumerate(self.shape) if i != dim]
        if keepdim:
            shape.insert(dim, 1)
        return _new([fn(line) for line in lines], shape, self.dtype)

    def sum(self, dim=None, keepdim=False):
        rounding = dtypes.rounder(self.dtype)
        add = math.fsum if self.dtype.kind == "float" else builtins.sum
        return self._reduce(lambda v: rounding([add(v)])[0], dim, keepdim)

    def mean(self, dim=None, keepdim=False):
        rounding = dtypes.rounder(self.dtype)
        return self._reduce(
            lambda v: rounding([math.fsum(v) / len(v)])[0], dim, keepdim
        )

    def max(self, dim=None, keepdim=False):
        if dim is not None:
            raise OutsideSubset("tensor.max(dim) (it returns indices too)")
        return self._reduce(lambda v: _fold(arith.maximum, v))

    def softmax(self, dim=-1):
        if dim % len(self.shape) != len(self.shape) - 1:
            raise OutsideSubset("softmax over an axis other than the last")
        rounding = dtypes.rounder(self.dtype)
        rows = []
        for line in self._lines(dim)[0]:
            top = _fold(arith.maximum, line)
            if top == -math.inf:
                rows.extend([math.nan] * len(line))
                continue
            e = [arith.exp(v - top) for v in line]
            total = math.fsum(e)
            rows.extend(rounding([arith.div(v, total) for v in e]))
        return _new(rows, self.shape, self.dtype)

    def cumsum(self, dim=0):
        if dim % len(self.shape) != 0 or len(self.shape) != 1:
            raise OutsideSubset("cumsum of a tensor that is not 1-D")
        rounding = dtypes.rounder(self.dtype)
        total, out = 0, []
        for v in self.tolist_flat():
            total = rounding([total + v])[0]
            out.append(total)
        return _new(out, self.shape, self.dtype)

    def __matmul__(self, other) -> Tensor:
        (m, k), (k2, n) = self.shape, other.shape
        if k != k2:
            raise ValueError(
                f"matmul of shapes {list(self.shape)} and {list(other.shape)}"
            )
        a, b = self.tolist_flat(), other.tolist_flat()
        dtype = dtypes.promote(self.dtype, other.dtype)
        values = arith.matmul(a, b, m, k, n)
        return _new(dtypes.rounder(dtype)(values), (m, n), dtype)


def _fold(fn, values):
    best = values[0]
    for v in values[1:]:
        best = fn(best, v)
    return best


def _new(values: list, shape, dtype: DType) -> Tensor:
    return Tensor(Storage(values, dtype), shape)


def as_tensor(value, dtype=None) -> Tensor:
    if isinstance(value, Tensor):
        return value if dtype is None else value.to(dtype)
    return tensor(value, dtype=dtype)


def tensor(data, dtype=None, device=None) -> Tensor:
    shape, flat = [], data
    while isinstance(flat, (list, tuple)):
        shape.append(len(flat))
        flat = flat[0] if flat else None
    values = data
    for _ in shape[:-1] if shape else []:
        values = [v for row in values for v in row]
    values = values if shape else [data]
    if dtype is None:
        dtype = float32 if any(isinstance(v, builtins.float) for v in values) else int64
    return _new(convert(list(values), float64, dtype), shape, dtype)


def empty(*shape, dtype=None, device=None, **options) -> Tensor:
    shape, dtype = _shape_args(shape), dtype or float32
    filler = 0.0 if dtype.kind == "float" else 0
    return _new([filler] * arith.numel(shape), shape, dtype)


def zeros(*shape, dtype=None, device=None, **options) -> Tensor:
    return empty(*shape, dtype=dtype)


def full(shape, value, dtype=None, device=None) -> Tensor:
    shape = _shape_args((shape,)) if not isinstance(shape, builtins.int) else (shape,)
    dtype = dtype or dtypes.of_python(value)
    return _new(convert([value] * arith.numel(shape), float64 if isinstance(
        value, builtins.float) else int64, dtype), shape, dtype)  # fmt: skip


def ones(*shape, dtype=None, device=None) -> Tensor:
    return full(_shape_args(shape), 1, dtype or float32)


def empty_like(x: Tensor, dtype=None, device=None) -> Tensor:
    return empty(x.shape, dtype=dtype or x.dtype)


zeros_like = empty_like


def full_like(x: Tensor, value, dtype=None, device=None) -> Tensor:
    return full(x.shape, value, dtype or x.dtype)


def arange(start, end=None, step=1, dtype=None, device=None) -> Tensor:
    if end is None:
        start, end = 0, start
    return _new(list(range(start, end, step)), (len(range(start, end, step)),),
                dtype or int64)  # fmt: skip


def cat(tensors, dim=0) -> Tensor:
    if dim != 0 or any(len(t.shape) != 1 for t in tensors):
        raise OutsideSubset("torch.cat of tensors that are not 1-D")
    dtype = tensors[0].dtype
    values = [v for t in tensors for v in t.tolist_flat()]
    return _new(values, (len(values),), dtype)


def stack(tensors, dim=0) -> Tensor:
    if dim != 0:
        raise OutsideSubset("torch.stack along a dimension other than 0")
    first = tensors[0]
    values = [v for t in tensors for v in t.tolist_flat()]
    return _new(values, (len(tensors), *first.shape), first.dtype)


def maximum(a: Tensor, b: Tensor) -> Tensor:
    return a._binary(b, arith.maximum)


def add(a, b, out=None) -> Tensor:
    result = as_tensor(a) + b
    return result if out is None else out.copy_(result)


def equal(a: Tensor, b: Tensor) -> bool:
    return a.shape == b.shape and a.tolist_flat() == b.tolist_flat()


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise OutsideSubset(f"torch.{name}")
