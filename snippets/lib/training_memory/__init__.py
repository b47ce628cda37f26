"""The training-memory model.

Taught in docs/foundations/memory-budgets-for-training.md.
"""
