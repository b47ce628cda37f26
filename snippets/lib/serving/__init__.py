"""The serving engine (taught in docs/inference/serving-engine.md).

Modules, one job each:

- ``blocks``: the block pool of the paged KV cache, with the prefix cache's
  books.
- ``scheduler``: continuous batching without tensors: admission, preemption,
  budgets.
- ``engine``: the tensors and the forward pass; the one-at-a-time reference.
- ``speculative``: drafts, and the independent-acceptance arithmetic.
- ``simulator``: the scheduler on a simulated clock, and the step-time
  model.
- ``measured``: the committed load runs read for the pages, and the
  simulator check.
- ``mechanisms``: the four mechanism runs, recomputed from request records.
"""
