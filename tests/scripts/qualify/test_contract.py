"""The contract as data (scripts/qualify/contract.py)."""

import evidence
from kernels.residual_add_relu import DESCRIPTOR
from scripts.qualify import contract, evaluator
from scripts.qualify.checks import CHECK_ORDER
from scripts.qualify.task import of_family


def test_contract_lists_every_check_and_case_in_order():
    data = contract.contract()
    assert [c["name"] for c in data["checks"]] == CHECK_ORDER
    assert [c["number"] for c in data["cases"]] == list(
        range(1, len(data["cases"]) + 1)
    )
    assert data["exit_codes"] == {
        "qualified": 0,
        "rejected": 1,
        "harness-error": 2,
        "inconclusive": 3,
        "internal-error": 4,
    }
    evidence.validate(
        "verdict",
        {**evaluator.qualify(evidence.ROOT / "no-such-file.py"), "contract": data},
        "test",
    )


def test_goals_and_reference_come_from_the_descriptor():
    data = contract.contract()
    assert data["goals"] == DESCRIPTOR.catalog_entry()["goals"]
    assert of_family("elementwise-binary").descriptor_object is DESCRIPTOR


def test_the_checks_issue_36_added_come_in_the_order_they_are_judged():
    order = CHECK_ORDER
    assert order.index("output-fresh") < order.index("output-compact")
    assert order.index("output-compact") < order.index("values")
    assert (
        order.index("nan-mask") < order.index("rounding") < order.index("deterministic")
    )
    # what a CPU run cannot show about being watched is said in every verdict
    assert any("call" in item and "stack" in item for item in contract.CANNOT_ESTABLISH)
