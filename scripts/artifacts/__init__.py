"""The artifact builder: compiles every kernel's descriptor builds for sm_90a
and writes ``results/artifacts/<kernel>.sm_90a.json``.

Run it as ``python -m scripts.artifacts [KERNEL ...] [--out DIR]``; the code
is in ``build.py``.
"""
