"""Everything the grader can say before torch is imported: the exercise a
name means (hyphens or underscores, close names suggested); the file itself
(read as UTF-8 Python, its syntax, the function the exercise calls, imports
that would hand in someone else's kernel, its unmasked loads and stores) is
read by the harness at the learner trust level
(``scripts/qualify/learner_source.py``). A missing file or a misspelt name
is answered in well under a second."""

from __future__ import annotations

import difflib
from pathlib import Path

from scripts.practice.exercises import BY_NAME, COMMAND, Exercise
from scripts.qualify import learner_source
from scripts.qualify.learner_source import (  # noqa: F401  (re-exported)
    REFUSED_MODULES,
    Refused,
    mask_facts,
    read_source,
)

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: What the learner must fix before the grader can run the file.
PracticeError = learner_source.LearnerError


def exercise_named(name: str) -> Exercise:
    key = name.strip().replace("_", "-").lower()
    if key in BY_NAME:
        return BY_NAME[key]
    close = difflib.get_close_matches(key, list(BY_NAME), n=3, cutoff=0.5)
    close += [n for n in BY_NAME if key and key.split("-")[0] in n][: 3 - len(close)]
    close = list(dict.fromkeys(close))
    also = f" (did you mean {', '.join(close)}?)" if close else ""
    raise PracticeError(f"no exercise {name!r}{also}; `{COMMAND} list` lists them")


def check_source(exercise: Exercise, source: str, path: Path) -> None:
    """The harness's reading of the file, for this exercise's function."""
    learner_source.check_source(exercise.function, exercise.signature, source, path)
