"""Inclusive scan: the versions side by side in ``versions.py``, what the tools
need to know (shapes, goals, artifact builds) in ``describe.py``.

``kernels.scan.X`` is ``kernels.scan.versions.X`` for every name of the
versions module; patch a kernel for a test in ``versions``, where the
launchers look it up.
"""

from kernels.scan import versions
from kernels.scan.describe import DESCRIPTOR

__all__ = ["DESCRIPTOR", "versions"]


def __getattr__(name: str):
    return getattr(versions, name)
