"""The serving load generator: ``python -m scripts.serving``.

Drives snippets/serving_engine/engine.py with Poisson arrivals at several
offered loads and writes results/serving/<stamp>-<device>-<profile>-<commit>.json
(schema: scripts/results/schemas/serving.schema.json).
"""
