"""The practice track: exercises as data (exercises.py), the grader
(grader.py), the learner-side child process (child.py) and the command line
(__main__.py). Importing the package loads nothing heavy: the site reads
the exercises' data without torch."""
