"""Measure collectives among local processes (python -m scripts.collectives).

Modules, one job each:

- ``__main__``: the command line: measure and write a result file.
- ``launch``: starts N local ranks, reads rank 0's rows, always cleans up.
- ``sweep``: one sweep over world sizes, fitted, as a result file's content.
- ``worker``: one rank of a sweep.
"""
