"""The serving load generator: ``python -m scripts.serving``.

Drives snippets/lib/serving/engine.py with Poisson arrivals at several
offered loads and writes results/serving/<stamp>-<device>-<profile>-<commit>.json
(schema: evidence/schemas/serving.schema.json).

- loadgen.py: the loads, the mechanism runs and every request's record.
- check.py: the simulator check's replays of the committed runs, stored
  under results/serving/check/ for the site build.
"""
