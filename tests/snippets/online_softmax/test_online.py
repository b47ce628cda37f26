"""The online softmax model: the invariant, merges, bytes and answers."""

import math
import random

import pytest

from snippets.lib.softmax_merge import SCORES, SoftmaxState
from snippets.online_softmax import online


def rows():
    rng = random.Random(7)
    yield [rng.gauss(0, 30) for _ in range(600)]
    yield [-math.inf, -math.inf, 1.0, 2.0]
    yield sorted(rng.uniform(-50, 50) for _ in range(300))  # max moves every step
    yield [1000.0, 999.0, -1000.0]  # exp(1000) would overflow


@pytest.mark.parametrize(
    "scores", list(rows()), ids=["random", "neg-inf", "sorted", "huge"]
)
def test_online_matches_three_pass_and_the_invariant_holds(scores):
    assert max(online.invariant_gaps(scores)) < 1e-12
    for a, b in zip(
        online.softmax_online(scores), online.softmax_three_pass(scores), strict=True
    ):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-300)
    m, d = online.online_normalizer(scores)
    assert m == max(scores)
    assert d == pytest.approx(sum(math.exp(x - m) for x in scores), rel=1e-12)


@pytest.mark.parametrize(
    "scores", list(rows()), ids=["random", "neg-inf", "sorted", "huge"]
)
def test_one_exponential_update_equals_the_two_exponential_one(scores):
    m1, d1 = online.online_normalizer_one_exp(scores)
    m2, d2 = online.online_normalizer(scores)
    assert m1 == m2 and d1 == pytest.approx(d2, rel=1e-12)


def test_exp_counts_are_read_from_the_artifact():
    text = online.facts()["exp-counts"]
    assert "`v2-bf16-4096` " in text


def test_rescale_factor_never_exceeds_one():
    table = online.invariant_table()
    factors = [float(line.split("|")[4]) for line in table.splitlines()[2:]]
    assert all(0 <= f <= 1 for f in factors) and len(factors) == len(SCORES)


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 7, 8])
def test_tree_merge_and_lane_states_equal_one_pass(block_size):
    m, d = online.online_normalizer(SCORES)
    tree = online.merged_state(SCORES, block_size)
    assert tree.max == m and tree.sum == pytest.approx(d, rel=1e-14)
    total = SoftmaxState(-math.inf, 0.0)
    from snippets.lib.softmax_merge import merge

    for state in online.lane_states(SCORES, block_size):
        total = merge(total, state)
    assert total.max == m and total.sum == pytest.approx(d, rel=1e-14)


def test_bytes_and_worked_numbers():
    assert online.bytes_per_row(10, 2, 3) == 80
    assert online.facts()["row-bytes"] == "128 KiB"
    assert online.facts()["saving"] == "25%"  # (4 - 3) / 4
    assert online.facts()["overflow"] == "about 88.7"
    assert math.isinf(math.exp(89)) is False  # float64 does not, float32 does:
    assert math.exp(89) > online.FLOAT32_MAX > math.exp(88)
    table = online.passes_table()
    assert "| 3 | 1,024 MiB | 2.00× |" in table and "| 1 | 512 MiB | 1.00× |" in table


def test_the_exponentials_nearly_co_limit_a_two_pass_softmax():
    # bf16, read twice and written once: 6 bytes per element; at 4.8 TB/s
    # that is 0.8e12 elements/s, times 3 exps = 2.4e12 of 3.9e12 (finding F20).
    assert online.exp_share(2, 3) == 4.8e12 / 6 * 3 / 3.9e12
    assert online.facts()["exp-share.v2"] == "62%"
    assert online.facts()["exp-share.v4"] == "41%"


def test_exercise_answers_by_hand():
    answer = online.exercise_answer([2.0, -1.0, 5.0, 0.0], 2)
    b0, b1 = answer["blocks"]
    assert b0.max == 2 and b0.sum == pytest.approx(1 + math.exp(-3))
    assert b1.max == 5 and b1.sum == pytest.approx(1 + math.exp(-5))
    merged = answer["merged"]
    assert merged.max == 5
    assert merged.sum == pytest.approx(b0.sum * math.exp(-3) + b1.sum)
    ref = online.softmax_three_pass([2.0, -1.0, 5.0, 0.0])
    assert answer["softmax"] == pytest.approx(ref)
    facts = online.facts()
    assert (facts["exercise.merged.max"], facts["exercise.merged.sum"]) == (
        "5",
        "1.0590",
    )
    assert facts["exercise.scores"] == "`[2.0, -1.0, 5.0, 0.0]`"
    three, two = 4096 * 32768 * 4 * 4, 4096 * 32768 * 4 * 3
    assert facts["bytes.three"] == f"{three / 2**20:,.0f} MiB"
    assert facts["bytes.saved"] == f"{three - two:,}"
    assert (facts["bytes.rows"], facts["bytes.cols"]) == ("4,096", "32,768")


def test_merge_facts_and_figure():
    assert online.facts()["merge.orders"] == "12"
    fig = online.merge_figure()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("m=") for t in texts) == 3  # one state per block
    assert any(t.startswith("merged: m=4") for t in texts)
    assert sum(len(t) and t[0].isdigit() or t.startswith("-") for t in texts) >= len(
        SCORES
    )


def test_a_whole_65k_row_in_one_block_spills_at_both_widths():
    facts = online.whole_row_facts()
    # The float32 row is the whole register budget of a 1,024-thread block.
    assert facts["whole-row.values-per-thread"] == facts["whole-row.budget"] == "64"
    assert facts["whole-row.32.registers"] == facts["whole-row.budget"]
    assert int(facts["whole-row.16.spills"].replace(",", "")) > 0
    assert int(facts["whole-row.32.spills"].replace(",", "")) > 0
