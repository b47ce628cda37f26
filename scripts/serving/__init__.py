"""The serving load generator: ``python -m scripts.serving``.

Drives snippets/lib/serving/engine.py with Poisson arrivals at several
offered loads and writes results/serving/<stamp>-<device>-<profile>-<commit>.json
(schema: evidence/schemas/serving.schema.json).

Modules, one job each:

- ``__main__``: the command line: measure the engine under load, write a
  result file.
- ``loadgen``: the loads, the mechanism runs and every request's record.
- ``check``: the simulator check's replays of the committed runs, for the
  site build.
"""
