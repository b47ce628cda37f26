"""The block type of the page's ``triton.language`` (``language.py`` gathers
the namespace): blocks, elementwise operations, programs and constants,
computed on flat Python lists with Triton's dtypes and rounding.

A :class:`Block` is a row-major list of values with a shape and a dtype; a
block of pointers holds element indices into one :class:`Memory` (a
tensor's storage). Loads and stores check every active lane against that
storage: a lane past it is the fault a GPU would give, raised here as
:class:`Fault`. Anything this module lacks is refused by name
(:class:`OutsideSubset`), never computed some other way.
"""

# ruff: noqa: B905  (zips of lists built to one length, in the page's hot loops)

from __future__ import annotations

import math

from scripts.practice_web import arith, dtypes
from scripts.practice_web.dtypes import (  # noqa: F401  (tl.float32, ...)
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

int1 = bool_


class OutsideSubset(Exception):
    """A construct the page's Triton does not have."""

    def __init__(self, construct: str):
        self.construct = construct
        super().__init__(
            f"{construct} is outside the Triton subset this page runs: "
            "run it locally with the grader's command"
        )


class Fault(Exception):
    """A lane addressed memory outside every tensor."""


class constexpr:  # noqa: N801  (Triton's spelling)
    """The annotation of a compile-time parameter; also wraps a value."""

    def __init__(self, value=None):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __index__(self) -> int:
        return int(self.value)


class Pointer(DType):
    """A pointer to elements of `element`."""


def pointer_to(element: DType) -> Pointer:
    return Pointer(f"pointer<{dtypes.TRITON_NAMES.get(element, element.name)}>",
                   "ptr", 64)  # fmt: skip


class Launch:
    """The program now running: its ids, the grid, what it touched."""

    def __init__(self, grid=(1, 1, 1), record=None):
        self.grid = tuple(grid) + (1,) * (3 - len(grid))
        self.pid = (0, 0, 0)
        self.record = record  # races.Record of a launch of several programs

    def note(self, kind, memory, places, active, sem=None) -> None:
        if self.record is not None:
            self.record.note(kind, self.pid, memory, places, active, sem)


#: Set by the launcher around each program (runtime.py).
current = Launch()


class Block:
    __slots__ = ("data", "shape", "dtype", "memory", "element")

    def __init__(self, data, shape, dtype, memory=None, element=None):
        self.data, self.shape, self.dtype = data, tuple(shape), dtype
        self.memory, self.element = memory, element

    def __repr__(self) -> str:
        return f"Block(shape={list(self.shape)}, dtype={self.dtype}, {self.data[:8]})"

    @property
    def numel(self) -> int:
        return len(self.data)

    # --- scalars in Python control flow -------------------------------
    def _scalar(self, what: str):
        if self.shape:
            raise OutsideSubset(f"{what} of a block of shape {list(self.shape)}")
        return self.data[0]

    def __bool__(self):
        return bool(self._scalar("the truth value"))

    def __index__(self):
        return int(self._scalar("an index"))

    __int__ = __index__

    def __float__(self):
        return float(self._scalar("float()"))

    def __iter__(self):
        raise OutsideSubset("iterating over a block")

    # --- shape ----------------------------------------------------------
    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        shape, axis = [], 0
        for item in key:
            if item is None:
                shape.append(1)
            elif isinstance(item, slice) and item == slice(None):
                shape.append(self.shape[axis])
                axis += 1
            else:
                raise OutsideSubset(f"indexing a block with [{item!r}]")
        shape.extend(self.shape[axis:])
        return Block(self.data, shape, self.dtype, self.memory, self.element)

    @property
    def T(self):  # noqa: N802
        from scripts.practice_web.blockops import trans

        return trans(self)

    def to(self, dtype, bitcast=False, fp_downcast_rounding=None):
        if bitcast or fp_downcast_rounding:
            raise OutsideSubset(".to(..., bitcast=True)")
        return cast(self, dtype)

    def reshape(self, *shape, can_reorder=False):
        from scripts.practice_web import blockops

        return blockops.reshape(self, *shape)

    def sum(self, axis=None, keep_dims=False):
        from scripts.practice_web import blockops

        return blockops.sum(self, axis, keep_dims)

    def max(self, axis=None, keep_dims=False):
        from scripts.practice_web import blockops

        return blockops.max(self, axis, keep_dims)

    # --- arithmetic -----------------------------------------------------
    def __add__(self, other):
        return binary(self, other, "+")

    def __radd__(self, other):
        return binary(other, self, "+")

    def __sub__(self, other):
        return binary(self, other, "-")

    def __rsub__(self, other):
        return binary(other, self, "-")

    def __mul__(self, other):
        return binary(self, other, "*")

    def __rmul__(self, other):
        return binary(other, self, "*")

    def __truediv__(self, other):
        return binary(self, other, "/")

    def __rtruediv__(self, other):
        return binary(other, self, "/")

    def __floordiv__(self, other):
        return binary(self, other, "//")

    def __rfloordiv__(self, other):
        return binary(other, self, "//")

    def __mod__(self, other):
        return binary(self, other, "%")

    def __rmod__(self, other):
        return binary(other, self, "%")

    def __and__(self, other):
        return binary(self, other, "&")

    __rand__ = __and__

    def __or__(self, other):
        return binary(self, other, "|")

    __ror__ = __or__

    def __xor__(self, other):
        return binary(self, other, "^")

    def __lshift__(self, other):
        return binary(self, other, "<<")

    def __rshift__(self, other):
        return binary(self, other, ">>")

    def __lt__(self, other):
        return binary(self, other, "<")

    def __le__(self, other):
        return binary(self, other, "<=")

    def __gt__(self, other):
        return binary(self, other, ">")

    def __ge__(self, other):
        return binary(self, other, ">=")

    def __eq__(self, other):
        return binary(self, other, "==")

    def __ne__(self, other):
        return binary(self, other, "!=")

    __hash__ = None

    def __neg__(self):
        return unary(self, "-")

    def __pos__(self):
        return self

    def __invert__(self):
        return unary(self, "~")

    def __abs__(self):
        return abs(self)

    def __matmul__(self, other):
        raise OutsideSubset("a @ b on blocks (use tl.dot)")


def block(value, dtype=None) -> Block:
    """A Python constant or a block, as a block."""
    if isinstance(value, Block):
        return value
    if isinstance(value, constexpr):
        value = value.value
    if not isinstance(value, (bool, int, float)):
        raise OutsideSubset(f"a value of type {type(value).__name__} in a kernel")
    dtype = dtype or dtypes.of_python(value)
    return Block(dtypes.rounder(dtype)([value]), (), dtype)


# --------------------------------------------------------------------------
# Elementwise operations
# --------------------------------------------------------------------------

FLOAT_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": arith.div,
    "%": lambda a, b: math.fmod(a, b) if b else math.nan,
    "//": lambda a, b: math.floor(arith.div(a, b)) if b else arith.div(a, b),
}
INT_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": arith.int_div,
    "%": arith.int_mod,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
}
COMPARE = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _result_dtype(a, b) -> DType:
    if isinstance(a, Block) and isinstance(b, Block):
        return dtypes.promote(a.dtype, b.dtype)
    if isinstance(a, Block):
        return dtypes.weak_promote(a.dtype, plain(b))
    return dtypes.weak_promote(b.dtype, plain(a))


def plain(value):
    if isinstance(value, constexpr):
        value = value.value
    if not isinstance(value, (bool, int, float)):
        raise OutsideSubset(f"a value of type {type(value).__name__} in a kernel")
    return value


def binary(a, b, op: str) -> Block:
    if isinstance(getattr(a, "dtype", None), Pointer) or isinstance(
        getattr(b, "dtype", None), Pointer
    ):
        return _pointer_arith(a, b, op)
    dtype = _result_dtype(a, b)
    if op == "/" and dtype.kind != "float":
        dtype = float32  # Triton's int / int is a float32 division
    a, b = block(a, dtype), block(b, dtype)
    shape = arith.broadcast_shape(a.shape, b.shape)
    left = arith.expand(values_as(a, dtype), a.shape, shape)
    right = arith.expand(values_as(b, dtype), b.shape, shape)
    if op in COMPARE:
        fn = COMPARE[op]
        return Block([fn(x, y) for x, y in zip(left, right)], shape, bool_)
    table = FLOAT_OPS if dtype.kind == "float" else INT_OPS
    if op not in table:
        raise OutsideSubset(f"the operator {op} on {dtype}")
    fn = table[op]
    return Block(dtypes.rounder(dtype)([fn(x, y) for x, y in zip(left, right)]),
                 shape, dtype)  # fmt: skip


def values_as(b: Block, dtype: DType) -> list:
    return b.data if b.dtype == dtype else convert(b.data, b.dtype, dtype)


def convert(values: list, source: DType, target: DType) -> list:
    """Values of dtype `source` cast to `target` (a C cast: floats to ints
    toward zero, wider ints wrap)."""
    if target.kind == "bool":
        return [bool(v) for v in values]
    if target.kind == "float":
        return dtypes.rounder(target)([float(v) for v in values])
    if source.kind == "float":
        values = [dtypes.float_to_int(v) for v in values]
    return dtypes.rounder(target)([int(v) for v in values])


def _pointer_arith(a, b, op: str) -> Block:
    if isinstance(b, Block) and isinstance(b.dtype, Pointer):
        a, b = b, a  # int + pointer
        if op != "+":
            raise OutsideSubset(f"the operator {op} between pointers")
    if op not in ("+", "-") or (isinstance(b, Block) and isinstance(b.dtype, Pointer)):
        raise OutsideSubset(f"the operator {op} on pointers")
    b = block(b)
    if b.dtype.kind not in ("int", "uint"):
        raise TypeError(f"a pointer plus {b.dtype}: offsets must be integers")
    shape = arith.broadcast_shape(a.shape, b.shape)
    sign = 1 if op == "+" else -1
    base = arith.expand(a.data, a.shape, shape)
    step = arith.expand(b.data, b.shape, shape)
    return Block([p + sign * s for p, s in zip(base, step)], shape, a.dtype,
                 a.memory, a.element)  # fmt: skip


def unary(a: Block, op: str) -> Block:
    if op == "-":
        return binary(0 if a.dtype.kind != "float" else -0.0, a, "-")
    if a.dtype.kind == "bool":
        return Block([not v for v in a.data], a.shape, bool_)
    if a.dtype.kind == "float":
        raise TypeError("~ on a float block")
    return Block(dtypes.rounder(a.dtype)([~v for v in a.data]), a.shape, a.dtype)


def cast(a, dtype) -> Block:
    a = block(a)
    if isinstance(dtype, constexpr):
        dtype = dtype.value
    if not isinstance(dtype, DType) or isinstance(dtype, Pointer):
        raise OutsideSubset(f".to({dtype!r})")
    return Block(values_as(a, dtype), a.shape, dtype)


def _float_fn(name, fn):
    def apply(x, *rest, **options):
        if rest or options:
            raise OutsideSubset(f"tl.{name} with extra arguments")
        x = block(x)
        if x.dtype.kind != "float":
            raise TypeError(f"tl.{name} expects a float block, got {x.dtype}")
        return Block(dtypes.rounder(x.dtype)([fn(v) for v in x.data]), x.shape, x.dtype)

    apply.__name__ = name
    return apply


exp = _float_fn("exp", arith.exp)
exp2 = _float_fn("exp2", arith.exp2)
log = _float_fn("log", arith.log)
sqrt = _float_fn("sqrt", arith.sqrt)
sqrt_rn = sqrt


def abs(x) -> Block:  # noqa: A001
    x = block(x)
    values = [v if v != v or v >= 0 else -v for v in x.data]
    return Block(dtypes.rounder(x.dtype)(values), x.shape, x.dtype)


def _pairwise(fn):
    def apply(a, b, propagate_nan=None):
        dtype = _result_dtype(a, b)
        a, b = block(a, dtype), block(b, dtype)
        shape = arith.broadcast_shape(a.shape, b.shape)
        left = arith.expand(values_as(a, dtype), a.shape, shape)
        right = arith.expand(values_as(b, dtype), b.shape, shape)
        return Block([fn(x, y) for x, y in zip(left, right)], shape, dtype)

    return apply


maximum = _pairwise(arith.maximum)
minimum = _pairwise(arith.minimum)


def where(condition, x, y) -> Block:
    condition = block(condition)
    dtype = _result_dtype(x, y) if isinstance(x, Block) or isinstance(y, Block) \
        else dtypes.promote(dtypes.of_python(x), dtypes.of_python(y))  # fmt: skip
    x, y = block(x, dtype), block(y, dtype)
    if isinstance(x.dtype, Pointer) or isinstance(y.dtype, Pointer):
        raise OutsideSubset("tl.where between pointers")
    shape = arith.broadcast_shape(
        condition.shape, arith.broadcast_shape(x.shape, y.shape)
    )
    pick = arith.expand(condition.data, condition.shape, shape)
    left = arith.expand(values_as(x, dtype), x.shape, shape)
    right = arith.expand(values_as(y, dtype), y.shape, shape)
    return Block([a if c else b for c, a, b in zip(pick, left, right)], shape, dtype)


# --------------------------------------------------------------------------
# Programs, ranges, constants
# --------------------------------------------------------------------------

#: What the launches did, for the grader: ("store", storage),
#: ("atomic", storage, op, is_float), ("dot", precision), ("guard", storage),
#: ("race", the launch's first race as races.first_race gives it).
events: list[tuple] = []


def program_id(axis) -> Block:
    return Block([current.pid[int(plain(axis))]], (), int32)


def num_programs(axis) -> Block:
    return Block([current.grid[int(plain(axis))]], (), int32)


def arange(start, end) -> Block:
    start, end = int(plain(start)), int(plain(end))
    count = end - start
    if count <= 0 or count & (count - 1):
        raise ValueError(f"arange's range must be a power of 2, got {count}")
    return Block(list(range(start, end)), (count,), int32)


def shape_of(shape) -> tuple[int, ...]:
    shape = shape.value if isinstance(shape, constexpr) else shape
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(plain(s)) for s in shape)


def full(shape, value, dtype) -> Block:
    shape, dtype = shape_of(shape), _plain_dtype(dtype)
    return Block(convert([plain(value)] * arith.numel(shape), dtypes.of_python(
        plain(value)), dtype), shape, dtype)  # fmt: skip


def zeros(shape, dtype) -> Block:
    return full(shape, 0, dtype)


def _plain_dtype(dtype) -> DType:
    dtype = dtype.value if isinstance(dtype, constexpr) else dtype
    if not isinstance(dtype, DType):
        raise OutsideSubset(f"the dtype {dtype!r}")
    return dtype


def cdiv(a, b):
    if isinstance(a, Block) or isinstance(b, Block):
        return (a + b - 1) // b
    return -(-plain(a) // plain(b))


def static_range(*args):
    return range(*(int(plain(a)) for a in args))


def multiple_of(x, values):
    return x


def max_contiguous(x, values):
    return x


def static_assert(condition, message=""):
    if not condition:
        raise AssertionError(f"static_assert failed: {message}")
