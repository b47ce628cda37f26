import pytest

from snippets.lib.serving.scheduler import Sequence
from snippets.lib.serving.speculative import (
    acceptance_rate,
    expected_tokens_per_step,
    ngram_draft,
    speedup,
    wrong_draft,
)


def test_expected_tokens_per_step_by_hand():
    assert expected_tokens_per_step(0.0, 4) == 1.0  # only the model's token
    assert expected_tokens_per_step(1.0, 4) == 5.0  # every guess and one more
    assert expected_tokens_per_step(0.5, 2) == pytest.approx(1 + 0.5 + 0.25)
    with pytest.raises(ValueError, match="acceptance"):
        expected_tokens_per_step(1.5, 2)


def test_speedup_is_tokens_over_cost():
    assert speedup(0.5, 2, verify_cost=1.0, draft_cost=0.0) == pytest.approx(1.75)
    # A draft that costs as much as it saves buys nothing.
    assert speedup(0.0, 4, verify_cost=1.2, draft_cost=0.0) < 1


def test_ngram_draft_repeats_what_followed_the_last_match():
    seq = Sequence(0, [5, 6, 7, 8, 5, 6], limit=4)
    assert ngram_draft(seq, 2) == [7, 8]
    assert ngram_draft(Sequence(0, [1, 2, 3], limit=4), 2) == []  # no repeat
    assert len(wrong_draft()(seq, 3)) == 3


def test_acceptance_rate():
    assert acceptance_rate(0, 0) == 0.0 and acceptance_rate(10, 4) == 0.4
