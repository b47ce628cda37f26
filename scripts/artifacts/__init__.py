"""The artifact builder: compiles every kernel's descriptor builds for sm_90a
and writes ``results/artifacts/<kernel>.sm_90a.json``.

Run it as ``python -m scripts.artifacts [KERNEL ...] [--out DIR]``; the code
is in ``build.py``.

Modules, one job each:

- ``__main__``: the command line, ``python -m scripts.artifacts``.
- ``build``: compiles each descriptor build for every target and writes its
  record.
- ``gluon``: compiles the Gluon matmul and records what its partitions do.
- ``partitions``: reads what each warp-specialised partition does from the
  GPU IR.
"""
