"""Measure collectives among local processes (python -m scripts.collectives)."""
