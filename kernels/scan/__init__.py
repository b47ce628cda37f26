"""Inclusive scan: a kernel package. Callers reach its parts through
``kernels.descriptor.kernel_module(name, part)`` or by the module's
own name (``kernels.scan.versions``); this file holds nothing else.

Modules, one job each:

- ``versions``: the kernels side by side, their launchers and the napkin math.
- ``describe``: the DESCRIPTOR, what the tools need to know (shapes, goals,
  artifact builds).
- ``task``: the qualification task, as data (``python -m scripts.qualify
  --task scan``).
"""
