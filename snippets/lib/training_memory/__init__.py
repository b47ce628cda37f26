"""The training-memory model.

Taught in docs/foundations/memory-budgets-for-training.md.

Modules, one job each:

- ``budget``: the training memory budgets.
- ``worked``: the lesson's worked problems.
"""
