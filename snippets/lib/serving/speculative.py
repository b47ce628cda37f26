"""Speculative decoding for the serving engine: drafts, and the arithmetic
of what they buy (docs/inference/speculative-decoding.md).

Standard library only. A draft guesses the next k tokens; the engine feeds
the last token and the k guesses in one step, keeps the guesses up to the
first one the model disagrees with, and adds the model's own token there
(scheduler.Scheduler.commit). Under greedy decoding the output is therefore
the model's own, token for token, whatever the draft guesses.
"""

import random


# --8<-- [start:ngram]
def ngram_draft(seq, k: int, longest: int = 3) -> list[int]:
    """Prompt-lookup drafting: find the latest earlier place where the
    sequence's last n tokens (n = longest .. 1) occurred, and guess that
    the k tokens which followed them then follow again now."""
    tokens = seq.tokens
    for n in range(min(longest, len(tokens) - 1), 0, -1):
        tail = tokens[-n:]
        for start in range(len(tokens) - n - 1, -1, -1):
            if tokens[start : start + n] == tail:
                follow = tokens[start + n : start + n + k]
                if follow:
                    return follow
    return []


# --8<-- [end:ngram]


def wrong_draft(vocab: int = 256, seed: int = 0):
    """A draft that guesses at random: almost always wrong, for the tests
    (the output must still be the model's own)."""
    rng = random.Random(seed)

    def draft(seq, k: int) -> list[int]:
        return [rng.randrange(vocab) for _ in range(k)]

    return draft


# --8<-- [start:model]
def expected_tokens_per_step(acceptance: float, k: int) -> float:
    """Tokens one verification step yields when each of k draft tokens is
    accepted with probability `acceptance`, independently, until the first
    rejection, plus the model's own token: 1 + a + a^2 + ... + a^k
    (Leviathan, Kalman and Matias, 2023)."""
    if not 0 <= acceptance <= 1:
        raise ValueError(f"acceptance must be in [0, 1], got {acceptance}")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if acceptance == 1:
        return k + 1.0
    return (1 - acceptance ** (k + 1)) / (1 - acceptance)


def speedup(acceptance: float, k: int, verify_cost: float, draft_cost: float) -> float:
    """Decode speed-up over one token per step: tokens per verification
    step over that step's cost, in units of a plain decode step.
    verify_cost: a step feeding k+1 tokens against a step feeding one (near
    1 while decode is bandwidth-bound); draft_cost: the draft's cost for k
    tokens, in the same units (near 0 for an n-gram lookup)."""
    return expected_tokens_per_step(acceptance, k) / (verify_cost + draft_cost)


# --8<-- [end:model]


def acceptance_rate(proposed: int, accepted: int) -> float:
    """Accepted draft tokens over proposed ones (0 when none were proposed)."""
    return accepted / proposed if proposed else 0.0


if __name__ == "__main__":
    for a in (0.3, 0.6, 0.8):
        row = ", ".join(
            f"k={k}: {expected_tokens_per_step(a, k):.2f}" for k in (1, 2, 4, 8)
        )
        print(f"acceptance {a:.0%}: tokens per step {row}")
