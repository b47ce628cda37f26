"""The practice track, one job a module:

- ``exercises``: the exercises as data (cases, references, hints, known
  mistakes) and the one spelling of the grader's command.
- ``source``: what is said before torch is imported: the exercise a name
  means, the file read and parsed, imports of someone else's kernel refused.
- ``grader``: builds the cases, runs the child, judges what comes back.
- ``hints``: which hint a failure earns, from the conditions seen.
- ``child``: the learner's side: loads the file, calls it on each case.
- ``watch``: what a launch did (stores into out and from which file, atomics,
  float32 dots), from the interpreter's builder.
- ``__main__``: the command line (list, start, check).

Importing the package loads nothing heavy: the site reads the exercises'
data without torch.
"""
