"""What the page's worker calls, in Pyodide: :func:`install` binds ``torch``,
``triton`` and ``triton.language`` to the subset (before
``scripts.practice.hints`` is imported, which imports torch), then
:func:`check` grades a source and :func:`run` runs it on the first case.
Both return JSON text, so the worker passes plain strings.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys


def install() -> None:
    from scripts.practice_web import language, runtime, tensor

    sys.modules["torch"] = tensor
    sys.modules["triton"] = runtime.triton
    sys.modules["triton.language"] = language


def check(name: str, source: str) -> str:
    """The check's report: every case's outcome, what the file printed, or
    the one line saying why it cannot run here."""
    from scripts.practice.exercises import BY_NAME
    from scripts.practice_web import grade

    report = grade.check(BY_NAME[name], source, "kernel.py")
    outcomes = [
        {"case": o.case, "passed": o.passed, "message": o.message, "hint": o.hint}
        for o in report.outcomes
    ]
    passed = bool(outcomes) and all(o["passed"] for o in outcomes)
    return json.dumps(
        {
            "outcomes": outcomes,
            "printed": report.printed,
            "refused": report.refused,
            "error": report.error,
            "passed": passed,
        }  # fmt: skip
    )


def run(name: str, source: str) -> str:
    """The file run on the exercise's first case: what it printed, and the
    first values of out (or the one line of its exception)."""
    from scripts.practice.exercises import BY_NAME
    from scripts.practice_web import cases, grade, runtime
    from scripts.practice_web.blocks import OutsideSubset

    exercise = BY_NAME[name]
    case = exercise.cases[0]
    printed, result = io.StringIO(), {}
    try:
        with contextlib.redirect_stdout(printed), grade.page_torch():
            function = runtime.load(source, "kernel.py")[exercise.function]
            values = cases.build(case, 0)
            returned = grade.run_case(function, case, values, exercise, "kernel.py")
        if returned["status"] == "ok":
            head = returned["out"].tolist_flat()[:8]
            result["out"] = [v if v == v else "nan" for v in head]
        else:
            result["error"] = returned["error"]
    except OutsideSubset as exc:
        result["refused"] = str(exc)
    except Exception as exc:  # the learner's file, in one line
        result["error"] = grade.one_line(exc, "kernel.py")
    result |= {"case": case.name, "printed": printed.getvalue()[: grade.PRINT_LIMIT]}
    return json.dumps(result)
