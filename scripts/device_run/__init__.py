"""The GPU run (issue 24): every device check in one command, cheapest first.

``python -m scripts.device_run --out DIR`` runs the steps below in order, each
as its own process with its own time limit, writing everything it produces
under ``DIR`` (logs, JUnit XML, verdicts, sanitizer findings, benchmark and
serving result files) and a ``summary.json`` saying what ran, how long it took
and how it ended. A step that overruns is killed and the next one starts; the
whole run stops starting steps once its budget is spent, so one rerun always
fits in the session's device time.

``--dry-run`` runs the same steps on the CPU, on tiny scopes, so the script is
tested before a GPU is ever lent (tests/scripts/device_run runs it).

Modules, one job each:

- ``__main__``: runs every step in order under its time limit and packs the
  output.
- ``steps``: the steps as data: commands on a GPU and for a CPU dry run,
  limits.
"""
