"""Round under the Triton interpreter as compiled code rounds: float32 to
bfloat16 to nearest even, and the operands of a float32 ``tl.dot`` at
input precision "tf32" (the default) to TF32 (used by
``scripts/qualify/worker.py`` in the candidate's process, and by
``scripts/qualify/judge.py`` to know whether it could).

The Triton 3.8 interpreter truncates a float32 to bfloat16 conversion (and
its "rtne" mode rounds half up without carrying into the exponent), where
compiled code rounds to nearest even. With that, a kernel that truncates or
rounds with a bias on purpose gives bits no different from a correct one's,
and the evaluator could only allow one ulp. This module replaces the
interpreter's conversion, for float32 to bfloat16 in the default and "rtne"
modes only, by a correct round to nearest even, so the evaluator compares
bfloat16 results bit for bit. Undoing it only makes a correct kernel's
results truncated again, which the exact comparison rejects.

The interpreter multiplies a float32 ``tl.dot`` exactly whatever its input
precision, where a GPU's tensor cores take "tf32" operands with 10 fraction
bits (Triton 3.8's sm_90a code feeds the float32 registers to
``wgmma ... .tf32``): a kernel that forgets ``input_precision="ieee"``
passes here and is off by about 2**-11 per product there.
``round_tf32_dots`` rounds those operands first, so such a kernel's values
leave a float32 error bound here too, and counts each such dot so the
verdict can say TF32. 16-bit values converted to float32 round to
themselves (bfloat16 has 7 fraction bits, float16 10).
"""

from __future__ import annotations

import numpy as np


def _interpreter():
    try:
        from triton.runtime import interpreter
    except ImportError:  # pragma: no cover - every Triton we run has it
        return None
    convert = getattr(interpreter, "_convert_float", None)
    modes = getattr(getattr(interpreter, "_ir", None), "ROUNDING_MODE", None)
    if not callable(convert) or not hasattr(modes, "RTNE"):
        return None  # another Triton: the judge then calls exactness inconclusive
    return interpreter


def patchable() -> bool:
    """Whether this Triton's interpreter has the conversion this replaces."""
    return _interpreter() is not None


def bf16_bits_nearest_even(f32_bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns of float32 ones (uint32), rounded to nearest,
    ties to even; a NaN stays a quiet NaN of the same sign."""
    wide = f32_bits.astype(np.uint64)
    nan = (wide & 0x7FFFFFFF) > 0x7F800000
    lsb = (wide >> 16) & 1
    rounded = (wide + 0x7FFF + lsb) >> 16
    quiet = (wide >> 16) | 0x40
    return np.where(nan, quiet, rounded).astype(np.uint16)


def round_bf16_to_nearest_even() -> bool:
    """Install the correct conversion; False when this Triton has none to
    replace (the evaluator then allows one ulp and calls exactness
    inconclusive)."""
    interpreter = _interpreter()
    if interpreter is None:
        return False
    import triton.language as tl

    original = interpreter._convert_float
    rtne = interpreter._ir.ROUNDING_MODE.RTNE

    def convert(data, input_dtype, output_dtype, rounding_mode):
        wanted = rounding_mode is None or rounding_mode == rtne
        if input_dtype == tl.float32 and output_dtype == tl.bfloat16 and wanted:
            bits = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint32)
            return bf16_bits_nearest_even(bits).reshape(data.shape)
        return original(data, input_dtype, output_dtype, rounding_mode)

    interpreter._convert_float = convert
    return True


def tf32_bits_nearest(f32_bits: np.ndarray) -> np.ndarray:
    """float32 bit patterns (uint32) rounded to TF32's 10 fraction bits, to
    nearest, ties to even, kept as float32 bits; NaN and inf unchanged."""
    wide = f32_bits.astype(np.uint64)
    special = (wide & 0x7F800000) == 0x7F800000
    lsb = (wide >> 13) & 1
    rounded = ((wide + 0xFFF + lsb) >> 13) << 13
    return np.where(special, wide, rounded).astype(np.uint32)


def _to_tf32(data: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(data, dtype=np.float32).view(np.uint32)
    return tf32_bits_nearest(bits).view(np.float32).reshape(data.shape)


def round_tf32_dots(seen=None) -> bool:
    """Make the interpreter's float32 ``tl.dot`` at input precision "tf32"
    (Triton's default) round both operands to TF32 first, as a GPU's tensor
    cores do (NVIDIA: "rounds FP32 inputs to TF32"), where the interpreter
    multiplies them exactly; ``seen()`` is called once per such dot. "ieee"
    and "tf32x3" dots are left exact. False when this Triton's builder has
    no ``create_dot`` to wrap."""
    interpreter = _interpreter()
    builder = getattr(interpreter, "InterpreterBuilder", None)
    dot = getattr(builder, "create_dot", None)
    if dot is None:
        return False
    from triton.runtime.interpreter import TensorHandle

    def create_dot(self, a, b, d, precision, *rest):
        name = getattr(precision, "name", str(precision)).upper()
        if name == "TF32" and (a.dtype.is_fp32() or b.dtype.is_fp32()):
            if seen is not None:
                seen()
            a = TensorHandle(_to_tf32(a.data), a.dtype) if a.dtype.is_fp32() else a
            b = TensorHandle(_to_tf32(b.data), b.dtype) if b.dtype.is_fp32() else b
        return dot(self, a, b, d, precision, *rest)

    builder.create_dot = create_dot
    return True
