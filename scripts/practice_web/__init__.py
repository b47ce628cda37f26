"""The practice track in the reader's browser: a pure-Python Triton subset
and the CLI grader's contract judged on it (Pyodide cannot load Triton's
compiled interpreter). Standard library only, one job a module:

- ``dtypes``: the dtypes the exercises use, their rounding and promotion.
- ``arith``: shapes, broadcasting, IEEE arithmetic and numpy's sum order.
- ``blocks``: the block type, elementwise operations, programs and constants.
- ``blockops``: loads, stores and atomics, reductions, scans, ``tl.dot``.
- ``language``: ``triton.language``, the subset's names gathered from both.
- ``races``: races between the programs of one launch, the harness's rule.
- ``tensor``: ``torch``, the tensor the wrappers and references use.
- ``runtime``: ``triton`` (``jit``, launches) and the loader of a learner's file.
- ``rng``: torch's CPU generator, so the page's cases are the CLI's.
- ``cases``: an exercise's cases built with guards and the sentinel fill.
- ``diagnose``: the CLI's conditions and value checks, without torch.
- ``grade``: one check of a learner's source, as the CLI reports it.
- ``page``: what the page's worker calls in Pyodide (install, check, run).
"""
