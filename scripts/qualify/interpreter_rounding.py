"""Round float32 to bfloat16 to nearest even under the Triton interpreter
(used by ``scripts/qualify/worker.py`` in the candidate's process, and by
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
