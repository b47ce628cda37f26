"""Error bounds the benchmark runner and evaluator check outputs against.

A bound is elementwise: ``|out - truth| <= bound`` with the truth computed in
float64 from float64 copies of the inputs. Two ulps of the output dtype cover
round-to-nearest on the GPU and the interpreter's truncation to bfloat16;
kernel modules add float32 terms for sums taken in a different order than
the float64 reference (see each module's ``error_bound``).
"""

import torch

#: One float32 ulp at 1.0.
EPS32 = torch.finfo(torch.float32).eps


def eps(dtype: torch.dtype) -> float:
    """One ulp at 1.0 in ``dtype``."""
    return torch.finfo(dtype).eps


def elementwise(inputs, truth, dtype, shape):
    """One rounding to ``dtype``: two ulps of the result."""
    return 2 * eps(dtype) * truth.abs()


def exact(inputs, truth, dtype, shape):
    """A copy: nothing may differ."""
    return torch.zeros_like(truth)
