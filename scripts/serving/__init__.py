"""The serving load generator: ``python -m scripts.serving``.

Drives snippets/lib/serving/engine.py with Poisson arrivals at several
offered loads and writes results/serving/<stamp>-<device>-<profile>-<commit>.json
(schema: evidence/schemas/serving.schema.json).
"""
