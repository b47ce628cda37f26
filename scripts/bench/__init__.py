"""The benchmark runner: ``python -m scripts.bench`` (see ``__main__``).

Modules, one job each:

- ``__main__``: the command line: time kernels, write
  ``results/bench/*.json``.
- ``runner``: the harness: every kernel's descriptor, timed against PyTorch.
- ``timing``: interleaved timing of competing implementations.
- ``rows``: what one shape's measured rows mean: rates, fractions,
  plausibility.
- ``writer``: one run's result file: a new name, validated atomic rewrites.
- ``contribute``: checks and adds a result file measured on a reader's GPU.
- ``migrate``: converts old result files into schema-2 files (kept for the
  record).
- ``import_cli``: ``bench import``: another tool's result file, contributed.
- ``importers``: map nccl-tests, vLLM and SGLang files to our schemas.
- ``plan``: ``bench plan``: a manifest of independent cells for a cluster.
- ``site``: measures the project's own speed budgets.
- ``site_browser``: times the calculators' budgets in Chromium.
"""
