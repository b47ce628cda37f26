"""The worked layouts and exercise answers the page states."""

from snippets.parallelism_budgets import worked as w
from snippets.parallelism_budgets.budgets import layout_budget, pipeline_bubble


def test_every_layout_has_a_row_per_traffic_kind():
    table = w.layout_table()
    rows = sum(len(w.budget(name)["traffic"]) for name in w.LAYOUTS)
    assert table.count("\n") == rows + 1


def test_exercise_1_is_the_smallest_accumulation_that_hides():
    m = w.accumulation_needed()
    assert m > 1  # one micro-batch does not hide within half the backward

    def fits(count):
        b = layout_budget("llama3-70b", 8, 1, 4, count, 1)
        return (
            b["traffic"]["data parallel"]["seconds"]
            <= 0.5 * b["compute_seconds"] * 2 / 3
        )

    assert fits(m) and not fits(m - 1)


def test_exercise_3_is_the_smallest_micro_batch_count():
    m = w.micro_batches_for_bubble(4, 0.1)
    assert pipeline_bubble(4, m) <= 0.1 < pipeline_bubble(4, m - 1)


def test_facts_are_text():
    facts = w.facts()
    assert facts["nvlink"] == "450 GB/s" and facts["ib"] == "50 GB/s"
    assert all(isinstance(v, str) and v for v in facts.values())


def test_exercise_5_the_one_nic_mistake_is_eight_times_too_long():
    facts = w.one_nic_facts()
    assert facts["ex5.wrong"] == "622 ms" and facts["ex5.right"] == "77.8 ms"
    assert facts["ex5.factor"] == "8.0" and facts["ex5.nics"] == "8"
