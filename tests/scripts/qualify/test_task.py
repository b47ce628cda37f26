"""Tasks beyond the first (scripts/qualify/task.py): the row softmax's
cases, its bound-based judging, and its corpus (the course's kernel and
tests/scripts/qualify/candidates/softmax/)."""

import pytest
import torch

from evidence import ROOT, sha256_bytes
from scripts.qualify import contract, evaluator, judge, task
from scripts.qualify.cases import cases
from scripts.qualify.refresh import CORPUS_TIMEOUT_S, expectation

SOFTMAX = task.find("softmax")


def test_every_task_is_found_and_names_its_kernel():
    known = {"residual_add_relu", "softmax", "scan", "reduction", "transpose"}
    known |= {"matmul", "attention"}
    assert known <= set(task.tasks())
    for each in task.tasks().values():
        assert (ROOT / each.kernel_file).is_file()
        assert callable(each.descriptor_object.reference)


def test_a_task_is_picked_by_the_function_the_file_defines():
    assert task.for_source("def softmax(x):\n    pass\n") is SOFTMAX
    with pytest.raises(task.HarnessError, match="no function of any task"):
        task.for_source("def other(x):\n    pass\n")
    with pytest.raises(task.HarnessError, match="no task 'nope'"):
        task.find("nope")


def test_the_softmax_contract_has_one_input_cases_and_refusals():
    data = contract.contract(SOFTMAX)
    assert data["function"] == "softmax"
    assert {c["kind"] for c in data["cases"]} == {"kernel", "unsupported"}
    for case in cases(SOFTMAX):
        for call in case.build("cpu"):
            assert len(call.args) in (0, 1)


def test_the_bound_passes_the_reference_and_catches_an_overflow():
    x = torch.randn(4, 300) * 1e4
    descriptor = SOFTMAX.descriptor_object
    good = torch.softmax(x, dim=-1)
    assert judge.bound_problem(good, [x], descriptor)[0] is None
    naive = torch.exp(x) / torch.exp(x).sum(-1, keepdim=True)  # inf / inf
    problem, _ = judge.bound_problem(naive, [x], descriptor)
    assert problem and "outside the error bound" in problem


@pytest.mark.parametrize(
    "name, path",
    [
        ("softmax", "broken/no_max_subtraction.py"),
        ("softmax", "good/three_loop_rows.py"),
        ("scan", "broken/carry_dropped.py"),
        ("reduction", "broken/one_element_not_0d.py"),
        ("transpose", "broken/assumes_row_major.py"),
    ],
)
def test_a_tasks_corpus_gets_its_expected_verdict(name, path):
    path = f"{task.find(name).corpus}/{path}"
    expected = expectation(path)
    verdict = evaluator.qualify(
        ROOT / path,
        task=name,
        seed=1,
        timeout_s=CORPUS_TIMEOUT_S * 3,
        reviewed=sha256_bytes((ROOT / path).read_bytes()),
    )
    assert verdict["status"] == expected["status"], verdict["printed"]
    if expected["check"]:
        assert verdict["first_failure"]["check"] == expected["check"]


def test_a_sum_is_judged_against_the_references_0d_shape():
    reduction = task.find("reduction")
    assert reduction.output == "reference"
    for case in cases(reduction):
        assert all(len(call.args) <= 1 for call in case.build("cpu"))
