"""The practice track, one job a module:

- ``exercises``: the exercises as data (cases, references, hints, known
  mistakes) and the one spelling of the grader's command.
- ``source``: what is said before torch is imported: the exercise a name
  means; the file is read by the harness (``scripts.qualify.learner_source``).
- ``grader``: builds the cases, runs them through the harness at the
  learner trust level (``scripts.qualify.learner``), judges what comes back.
- ``hints``: which hint a failure earns, from the conditions seen.
- ``__main__``: the command line (list, start, check).

Importing the package loads nothing heavy: the site reads the exercises'
data without torch.
"""
