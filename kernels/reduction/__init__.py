"""Sum reduction: the versions side by side in ``versions.py``, what the tools
need to know (shapes, goals, artifact builds) in ``describe.py``.

``kernels.reduction.X`` is ``kernels.reduction.versions.X`` for every name of the
versions module; patch a kernel for a test in ``versions``, where the
launchers look it up.
"""

from kernels.reduction import versions
from kernels.reduction.describe import DESCRIPTOR

__all__ = ["DESCRIPTOR", "versions"]


def __getattr__(name: str):
    return getattr(versions, name)
