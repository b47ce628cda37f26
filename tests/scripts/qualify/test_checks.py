"""The registry of checks (scripts/qualify/checks.py): one object per
check, each shown able to fail by a corpus candidate that only it catches
(the task names it; the committed kill matrix must agree)."""

import json

from evidence import ROOT
from scripts.qualify import checks, contract
from scripts.qualify.task import tasks


def test_every_check_says_what_it_establishes_and_what_it_cannot():
    assert len(set(checks.CHECK_ORDER)) == len(checks.CHECKS)
    for check in checks.CHECKS:
        assert check.passes_when and check.cannot, check.name
        assert checks.BY_NAME[check.name] is check


def test_the_contract_lists_the_registry_in_its_order():
    listed = contract.contract()["checks"]
    assert [c["name"] for c in listed] == checks.CHECK_ORDER
    assert all(c["cannot"] for c in listed)


def test_each_tasks_only_catcher_is_caught_by_that_check_alone():
    corpus = json.loads((ROOT / "results/qualify/corpus.cpu.json").read_text())
    matrix = corpus["kill_matrix"]
    for task in tasks().values():
        if task.corpus != "tests/scripts/qualify/candidates":
            continue  # only this task's corpus is committed as a kill matrix
        assert set(task.only_catches) == set(checks.CHECK_ORDER)
        for name, path in task.only_catches.items():
            assert path in matrix[name]["only"], f"{name}: {path}"
