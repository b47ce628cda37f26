"""The verdict record and its printed lines (scripts/qualify/verdict.py)."""

from scripts.qualify import verdict as v
from scripts.qualify.cases import cases
from scripts.qualify.checks import CHECK_ORDER
from scripts.qualify.judge import CaseResult, Failure


def _verdict():
    return v.Verdict(
        candidate="c.py", device="cpu", interpreter_max_numel=8, mode="all"
    )


def test_results_are_reported_in_the_contracts_case_order_whatever_ran_first():
    first, second = cases()[0], cases()[1]
    later = CaseResult(second, "fail", [Failure("values", second.name, 1, "wrong")])
    earlier = CaseResult(first, "fail", [Failure("values", first.name, 1, "lost")])
    verdict = _verdict()
    verdict.conclude([later, earlier], "", 8)
    assert [c["name"] for c in verdict.cases] == [first.name, second.name]
    assert verdict.first_failure["case"] == first.name
    assert verdict.status == "rejected" and verdict.exit_code == 1


def test_the_first_failure_is_the_earliest_check_in_the_contracts_order():
    first, second = cases()[0], cases()[1]
    early_check, late_check = CHECK_ORDER[0], CHECK_ORDER[-1]
    on_first = CaseResult(first, "fail", [Failure(late_check, first.name, 1, "x")])
    on_second = CaseResult(second, "fail", [Failure(early_check, second.name, 1, "y")])
    verdict = _verdict()
    verdict.conclude([on_first, on_second], "", 8)
    assert verdict.first_failure["check"] == early_check
    assert verdict.first_failure["case"] == second.name


def test_a_refusal_names_the_line_and_how_to_override_it():
    verdict = _verdict()
    verdict.sha256 = "a" * 64
    verdict.refuse({"line": 3, "construct": "import os", "why": "not needed"})
    line = verdict.printed["verdict"]
    assert line.startswith("verdict: REFUSED (nothing ran): line 3 uses import os")
    assert line.endswith("--reviewed " + "a" * 64)
    assert verdict.to_dict()["cannot_establish"] == v.CANNOT_ESTABLISH


def _rounding_failure():
    case = next(c for c in cases() if c.name == "bfloat16")
    return CaseResult(case, "fail", [Failure("rounding", case.name, 1, "ties up")])


def test_a_rounding_failure_is_a_rejection_when_the_interpreter_rounds_right():
    verdict = _verdict()
    verdict.conclude([_rounding_failure()], "", 8)
    assert verdict.status == "rejected"


def test_a_rounding_failure_is_inconclusive_where_the_interpreter_truncates(
    monkeypatch,
):
    from scripts.qualify import interpreter_rounding

    monkeypatch.setattr(interpreter_rounding, "patchable", lambda: False)
    verdict = _verdict()
    verdict.conclude([_rounding_failure()], "", 8)
    assert verdict.status == "inconclusive"
    assert verdict.divergence == "interpreter-bfloat16-truncation"
    assert "INCONCLUSIVE HERE" in v.verdict_line(verdict.to_dict())
