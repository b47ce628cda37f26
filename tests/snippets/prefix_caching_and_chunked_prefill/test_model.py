import pytest

from snippets.lib.serving.simulator import StepTime
from snippets.prefix_caching_and_chunked_prefill import model


def test_a_hit_covers_whole_blocks_and_never_the_last_token():
    assert model.prefix_hit_tokens(1000, 1200, 16) == 992  # 62 blocks
    assert model.prefix_hit_tokens(32, 32, 16) == 16  # the last token is fed
    assert model.prefix_hit_tokens(15, 40, 16) == 0  # no full block
    assert model.prefill_saved(1000, 200, 16) == pytest.approx(992 / 1200)


def test_a_budget_shrinks_the_stall_and_lengthens_the_prefill():
    t = StepTime(1.0, 0.0, 1.0)  # 1 s per step plus 1 s per token fed
    whole, steps = model.stalled_step(t, decodes=3, prompt=20)
    assert (whole, steps) == (1 + 23, 1)
    chunked, steps = model.stalled_step(t, decodes=3, prompt=20, budget=8)
    assert (chunked, steps) == (1 + 8, 4)
    with pytest.raises(ValueError, match="budget"):
        model.stalled_step(t, decodes=8, prompt=20, budget=8)


def test_facts_and_no_answer_in_the_run_box():
    from pathlib import Path

    facts = model.facts()
    assert "82%" in facts["ex1_a"] or "83%" in facts["ex1_a"]
    assert "7 steps" in facts["ex2_a"]  # chunks of 16 - 7 = 9 tokens
    main = Path(model.__file__).read_text().split('if __name__ == "__main__":')[1]
    assert "EX1" not in main and "EX2" not in main
