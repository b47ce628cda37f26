import pytest

from snippets.speculative_decoding import spec


def test_verification_is_free_below_the_ridge_and_not_above():
    assert spec.verify_cost(1, 4) == pytest.approx(1.0)
    assert spec.verify_cost(512, 4) > 2  # compute-bound: FLOPs x5 show


def test_tables_and_facts():
    assert spec.table().count("\n") == 1 + len(spec.ACCEPTANCE)
    assert "2.31 tokens" in spec.facts()["ex1_a"]  # (1 - 0.6**5) / 0.4
    assert 0 < spec.engine_acceptance() < 1


def test_the_pays_table_does_not_hold_exercise_two():
    assert f"| {spec.EX2['batch']} |" not in spec.pays_table()
