"""Modules, one job each:

- ``cli``: the one argument parser that refuses in one line
  (``OneLineParser``).
- ``artifacts``: compiles the kernels' artifact builds and records what they
  use.
- ``bench``: times the kernels against PyTorch and measures the site's speed
  budgets.
- ``catalog``: writes ``results/kernels.json`` from the kernel descriptors.
- ``collectives``: measures collectives among local processes.
- ``device_run``: every device check in one command, for a GPU lease.
- ``practice``: the practice track's exercises, grader and command line.
- ``practice_web``: the practice grader in the reader's browser, on a
  pure-Python Triton subset.
- ``qualify``: the evaluator: qualifies a candidate kernel against a task.
- ``sanitize``: runs Compute Sanitizer over the planted bugs and the
  kernels.
- ``serving``: the serving load generator and the simulator check's replays.
- ``site``: the site build: hooks, placeholders, and the tables and plots
  from data.
- ``tiny_lm``: re-runs the tiny language model notebook and saves what it
  makes.
"""
