"""The kernel catalog: ``results/kernels.json``, every kernel descriptor's
plain data (``Descriptor.catalog_entry()``), so pages read bench shapes and
goals without importing torch or Triton.

``python -m scripts.catalog`` writes it; ``--check`` fails when the
committed file differs from what the descriptors give.

Modules, one job each:

- ``__main__``: the command line: write or ``--check``
  ``results/kernels.json``.
"""

from __future__ import annotations

from typing import Any

from evidence import RESULTS_DIR

PATH = RESULTS_DIR / "kernels.json"
SCHEMA_VERSION = 1


def catalog() -> dict[str, Any]:
    """What the descriptors give today, as the file holds it."""
    from kernels.descriptor import discover  # imports torch and Triton

    kernels = {name: d.catalog_entry() for name, d in discover().items()}
    return {"schema_version": SCHEMA_VERSION, "kernels": kernels}
