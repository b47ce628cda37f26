"""The evaluator of the Triton qualification project: it qualifies a
candidate ``residual_add_relu(x, residual)`` against its contract and writes
verdicts as data (``results/qualify/*.json``, kind "verdict").

``python -m scripts.qualify PATH`` qualifies one file (``__main__.py``);
``python -m scripts.qualify.refresh verdicts|corpus`` regenerates the
committed results. Modules: ``evaluator`` (checks, judging, the verdict),
``cases`` (the inputs), ``worker`` (the child process that runs the
candidate), ``refresh``. The words the pages show are built from the data
files by ``scripts/site/qualify_pages.py``, which never imports this package.
"""
