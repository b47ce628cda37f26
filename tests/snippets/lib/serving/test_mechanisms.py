"""The mechanism runs: every figure the pages show is recomputed here from
the stored per-request records, independently of mechanisms.py; the run's
own summaries agree with the records; and each direction a page states
(this fell, that rose) holds in every seed."""

import math
from statistics import median

import pytest

from snippets.lib.serving import measured, mechanisms


def nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[math.ceil(q * len(ordered) / 100) - 1]


def records(side):
    cols = side["requests"]
    return [
        dict(zip(cols, row, strict=True)) for row in zip(*cols.values(), strict=True)
    ]


def recomputed(side):
    reqs = records(side)
    gaps = [g for r in reqs for g in r["itl"]]
    out = {
        "ttft_p50_s": nearest_rank([r["ttft"] for r in reqs], 50),
        "ttft_p95_s": nearest_rank([r["ttft"] for r in reqs], 95),
        "itl_p50_s": nearest_rank(gaps, 50),
        "itl_p95_s": nearest_rank(gaps, 95),
        "itl_p99_s": nearest_rank(gaps, 99),
        "preemptions": sum(r["preemptions"] for r in reqs),
        "recomputed_tokens": sum(r["recomputed_tokens"] for r in reqs),
        "prompt_tokens": sum(r["prompt_tokens"] for r in reqs),
        "prefix_hit_rate": sum(r["prefix_hit_tokens"] for r in reqs)
        / sum(r["prompt_tokens"] for r in reqs),
    }
    if "draft_proposed" in side["requests"]:
        steps = [
            (p, a)
            for r in reqs
            for p, a in zip(r["draft_proposed"], r["draft_accepted"], strict=True)
        ]
        out["proposed"] = sum(p for p, _ in steps)
        out["accepted"] = sum(a for _, a in steps)
        out["tokens_per_decode_step"] = sum(a + 1 for _, a in steps) / len(steps)
        drafted = [a for p, a in steps if p]
        out["acceptance_length"] = 1 + sum(drafted) / len(drafted)
    return out


@pytest.fixture(scope="module")
def mech():
    result = measured.newest()
    assert result is not None and "mechanisms" in result
    return result["mechanisms"]


def test_three_seeds_with_every_request_recorded(mech):
    for which, m in mech.items():
        seeds = [run["seed"] for run in m["runs"]]
        assert len(set(seeds)) >= 3, which
        for run in m["runs"]:
            for side in ("without", "with"):
                reqs = records(run[side])
                assert all(len(r["itl"]) == r["output_tokens"] - 1 for r in reqs)


def test_the_stored_summaries_equal_the_records(mech):
    for which, m in mech.items():
        for run in m["runs"]:
            for side in ("without", "with"):
                stored, mine = run[side]["summary"], recomputed(run[side])
                for key in ("ttft_p50_s", "ttft_p95_s", "itl_p95_s", "itl_p99_s"):
                    assert stored[key] == mine[key], (which, side, key)
                assert stored["preemptions"] == mine["preemptions"]
                assert stored["recomputed_tokens"] == mine["recomputed_tokens"]
                assert stored["prefix_hit_rate"] == pytest.approx(
                    mine["prefix_hit_rate"]
                )
                assert mechanisms.summary(run[side]) | mine == mechanisms.summary(
                    run[side]
                ), (which, side)


def test_every_mechanism_figure_on_the_pages_is_the_records(mech):
    facts = mechanisms.facts()

    def med(which, side, key):
        return median(recomputed(run[side])[key] for run in mech[which]["runs"])

    def ms(x):  # the pages' format for a latency
        return f"{x * 1e3:.2f} ms" if x < 0.1 else f"{x * 1e3:.0f} ms"

    assert facts["itl_p99_without"] == ms(
        med("chunked_prefill", "without", "itl_p99_s")
    )
    assert facts["itl_p99_with"] == ms(med("chunked_prefill", "with", "itl_p99_s"))
    assert facts["chunk_ttft_p95_with"] == ms(
        med("chunked_prefill", "with", "ttft_p95_s")
    )
    assert facts["prefix_ttft_p50_with"] == ms(
        med("prefix_caching", "with", "ttft_p50_s")
    )
    assert (
        facts["prefix_hit_rate"]
        == f"{med('prefix_caching', 'with', 'prefix_hit_rate'):.0%}"
    )
    assert (
        facts["watermark_preemptions_with"]
        == f"{med('watermark', 'with', 'preemptions'):,.0f}"
    )
    runs = mech["speculative"]["runs"]
    per_seed = [recomputed(run["with"])["tokens_per_decode_step"] for run in runs]
    assert facts["spec_tokens_per_step"].startswith(f"{median(per_seed):.2f} (")
    proposed = sum(recomputed(run["with"])["proposed"] for run in runs)
    accepted = sum(recomputed(run["with"])["accepted"] for run in runs)
    assert facts["spec_acceptance"] == f"{accepted / proposed:.0%}"
    table = mechanisms.table("chunked_prefill")
    cell = ms(med("chunked_prefill", "with", "itl_p99_s"))
    assert cell in table.splitlines()[3]


def test_each_direction_the_pages_state_holds_in_every_seed(mech):
    def each(which, key, relation):
        for run in mech[which]["runs"]:
            without, with_ = recomputed(run["without"]), recomputed(run["with"])
            assert relation(with_[key], without[key]), (which, key, run["seed"])

    each("chunked_prefill", "itl_p99_s", lambda w, o: w < o)  # "cut the ITL p99"
    each("chunked_prefill", "ttft_p95_s", lambda w, o: w > o)  # "raised the p95"
    each("prefix_caching", "ttft_p50_s", lambda w, o: w < o)  # "fell in each"
    each("prefix_caching", "ttft_p95_s", lambda w, o: w < o)  # "the tail fell"
    each("prefix_caching", "preemptions", lambda w, o: w == 0 < o)  # "went"
    each("watermark", "preemptions", lambda w, o: w < o)  # "fewer in each"
    for run in mech["speculative"]["runs"]:
        assert run["with"]["summary"]["steps"] < run["without"]["summary"]["steps"]


def test_the_draft_records_account_for_every_output_token(mech):
    """Each request's output is its prefill's token, one token per
    readmission after a preemption, and accepted + 1 per decode step."""
    for run in mech["speculative"]["runs"]:
        for r in records(run["with"]):
            decoded = sum(a + 1 for a in r["draft_accepted"])
            assert r["output_tokens"] == 1 + r["preemptions"] + decoded


def test_the_reviews_replay_is_reproduced_from_the_records(mech):
    """The serving review replayed seed 2026: 404 steps, 1.44 tokens per
    sequence per decode step, and conditional acceptance 0.29, 0.55, 0.84,
    0.74 by position."""
    run = next(r for r in mech["speculative"]["runs"] if r["seed"] == 2026)
    steps = mechanisms.draft_steps(run["with"])
    assert run["with"]["summary"]["steps"] == 404
    assert round(mechanisms.tokens_per_decode_step(steps), 2) == 1.44
    rates = mechanisms.position_acceptance(steps, 4)
    assert [round(x, 2) for x in rates] == [0.29, 0.55, 0.84, 0.74]


def test_acceptance_arithmetic_on_a_hand_case():
    steps = [(4, 4), (4, 0), (2, 1), (0, 0)]
    assert mechanisms.position_acceptance(steps, 4) == [2 / 3, 1 / 2, 1.0, 1.0]
    assert mechanisms.acceptance_length(steps) == pytest.approx(1 + 5 / 3)
    assert mechanisms.tokens_per_decode_step(steps) == pytest.approx(9 / 4)
    # Known-bad: counting every proposed token as reached (the pooled rate)
    # would give 5/10 at every position, which is not what the rule says.
    assert mechanisms.position_acceptance(steps, 4)[0] != 5 / 10


def test_an_unknown_mechanism_is_named():
    with pytest.raises(ValueError, match="which must name a mechanism"):
        mechanisms.mechanism("nonsense")
