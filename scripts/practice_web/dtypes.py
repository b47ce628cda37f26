"""The dtypes the practice track uses, with Triton's rounding and promotion,
in pure Python: a float32 value is a Python float rounded to the nearest
float32 (``array('f')`` rounds as a C cast does, to nearest even, past the
largest finite to inf), an int32 wraps modulo 2**32 as the hardware does.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str
    kind: str  # "float", "int", "uint", "bool", "ptr"
    bits: int

    def __repr__(self) -> str:
        return self.name

    def is_floating(self) -> bool:
        return self.kind == "float"

    def is_int(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def itemsize(self) -> int:
        return max(self.bits // 8, 1)


float16 = DType("float16", "float", 16)
float32 = DType("float32", "float", 32)
float64 = DType("float64", "float", 64)
int8 = DType("int8", "int", 8)
int16 = DType("int16", "int", 16)
int32 = DType("int32", "int", 32)
int64 = DType("int64", "int", 64)
uint8 = DType("uint8", "uint", 8)
bool_ = DType("bool", "bool", 1)
ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
BY_NAME = {d.name: d for d in ALL} | {"int1": bool_, "fp32": float32, "fp16": float16}
#: Triton's short names (tl.float32 prints as fp32).
TRITON_NAMES = {float16: "fp16", float32: "fp32", float64: "fp64", bool_: "int1",
                int8: "int8", int16: "int16", int32: "int32", int64: "int64",
                uint8: "uint8"}  # fmt: skip
ARRAY_CODES = {float16: "e", float32: "f"}


def rounder(dtype: DType):
    """values -> the same values stored as dtype (a list in, a list out)."""
    if dtype.kind == "float":
        code = ARRAY_CODES.get(dtype)
        if code is None:
            return lambda values: [float(v) for v in values]
        return lambda values: _round_floats(code, values)
    if dtype.kind == "bool":
        return lambda values: [bool(v) for v in values]
    bits, signed = dtype.bits, dtype.kind == "int"
    code = INT_CODES[(bits, signed)]
    return lambda values: _round_ints(code, values, bits, signed)


#: array codes whose range is the dtype's: a value that fits is stored as is.
INT_CODES = {(8, True): "b", (16, True): "h", (32, True): "i", (64, True): "q",
             (8, False): "B"}  # fmt: skip


def _round_ints(code: str, values, bits: int, signed: bool) -> list[int]:
    try:
        array(code, values)  # C-fast: every value already fits
        return values if isinstance(values, list) else list(values)
    except (OverflowError, TypeError):
        return [wrap(v, bits, signed) for v in values]


def _round_floats(code: str, values) -> list[float]:
    try:
        return array(code, values).tolist()
    except OverflowError:  # float16 past its range: inf, as a cast gives
        return [_round_one(code, v) for v in values]


def _round_one(code: str, value: float) -> float:
    try:
        return array(code, [value])[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def wrap(value, bits: int, signed: bool) -> int:
    """An integer as a two's-complement `bits`-bit register holds it."""
    if isinstance(value, float):
        value = float_to_int(value)
    value = int(value) & ((1 << bits) - 1)
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


def float_to_int(value: float) -> int:
    """A C cast: toward zero; NaN and out of range give the most negative
    int64, as numpy's cast does on x86."""
    if math.isnan(value) or math.isinf(value) or abs(value) >= 2.0**63:
        return -(2**63)
    return int(value)


def promote(a: DType, b: DType) -> DType:
    """The result dtype of a binary op between two blocks."""
    if a == b:
        return a
    if a.kind == "float" or b.kind == "float":
        floats = [d for d in (a, b) if d.kind == "float"]
        return max(floats, key=lambda d: d.bits)
    if a.kind == "bool":
        return b
    if b.kind == "bool":
        return a
    if a.bits != b.bits:
        return max((a, b), key=lambda d: d.bits)
    return a if a.kind == "uint" else b  # same width: unsigned wins, as in C


def of_python(value) -> DType:
    """The dtype Triton gives a Python constant or scalar argument."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int32 if -(2**31) <= value < 2**31 else int64
    return float32


def weak_promote(block: DType, value) -> DType:
    """A block combined with a Python constant keeps the block's dtype
    unless the constant needs a wider kind (an int block times 0.5)."""
    if isinstance(value, bool):
        return block
    if isinstance(value, int):
        if block.kind in ("float", "int", "uint") and (
            block.kind == "float" or -(2**31) <= value < 2**31
        ):
            return block
        return promote(block, of_python(value))
    return block if block.kind == "float" else float32
