"""The scheduler alone, with a fake model: queueing, preemption and the
order tokens come out, checked without any tensors."""

import itertools

import pytest

from snippets.lib.serving.scheduler import Scheduler, Sequence, serve


class Tick:
    def __init__(self):
        self.t = 0.0

    def now(self):
        return self.t

    def wait_until(self, t):
        self.t = max(self.t, t)


def run(sizes, seqs):
    clock, sched = Tick(), Scheduler(**sizes)
    seen = []

    def step(batch):
        owned = [b for s in batch for b in s.blocks]
        assert len(owned) == len(set(owned))
        seen.append([s.seq_id for s in batch])
        clock.t += 1
        # The "model" emits each sequence's length so far: a recomputed
        # sequence that lost its output would produce different numbers.
        return [len(s.tokens) for s in batch]

    return serve(sched, seqs, step, clock), sched, seen


def test_preemption_keeps_the_output_and_frees_every_block():
    seqs = [Sequence(i, [1] * 7, limit=4) for i in range(3)]
    done, sched, seen = run(dict(max_batch=2, block_size=4, num_blocks=4), seqs)
    assert sched.preemptions == 1
    for s in done:
        assert s.output == [7, 8, 9, 10]
    assert sched.allocator.num_free == 4 and not sched.allocator.owner
    assert seen[0] == [0, 1] and seen[2] == [0]  # the youngest gave way


@pytest.mark.parametrize("block_size, num_blocks", [(1, 40), (3, 14), (8, 5)])
def test_every_request_finishes_whatever_the_pool(block_size, num_blocks):
    seqs = [Sequence(i, [1] * (3 + 5 * i), limit=6, arrival=0.5 * i) for i in range(6)]
    done, sched, _ = run(
        dict(max_batch=4, block_size=block_size, num_blocks=num_blocks), seqs
    )
    assert [len(s.output) for s in done] == [6] * 6
    assert sched.allocator.num_free == num_blocks


def test_a_request_never_starts_before_it_arrives():
    seqs = [Sequence(0, [1, 2], limit=2, arrival=5.0)]
    done, _, _ = run(dict(max_batch=1, block_size=4, num_blocks=1), seqs)
    assert done[0].token_times == [6.0, 7.0]


def test_a_token_budget_chunks_a_long_prefill_beside_running_decodes():
    seqs = [Sequence(0, [1] * 3, limit=6), Sequence(1, [1] * 10, limit=2, arrival=0.5)]
    done, sched, seen = run(
        dict(max_batch=2, block_size=4, num_blocks=8, token_budget=4), seqs
    )
    # From step 2 seq 0 decodes (1 token a step) while seq 1's 10-token
    # prompt is fed in chunks of 3, 3, 3 and 1 over steps 2 to 5; its first
    # token comes with its last chunk, at the end of step 5.
    assert done[1].token_times[0] == 5.0
    assert [len(s.output) for s in done] == [6, 2]
    assert all(0 in ids for ids in seen[:6])  # the decode never stalled


def test_bad_scheduler_arguments_name_themselves():
    with pytest.raises(ValueError, match="token_budget"):
        Scheduler(max_batch=1, block_size=4, num_blocks=4, token_budget=0)
    with pytest.raises(ValueError, match="watermark"):
        Scheduler(max_batch=1, block_size=4, num_blocks=4, watermark=1.5)


def test_emits_counts_what_the_token_lists_hold():
    # The counted form must agree with its definition on the lists.
    for prompt, output, cached, chunk, draft in itertools.product(
        (1, 5, 9), (0, 2), (0, 3, 6), (0, 1, 4), (0, 2)
    ):
        seq = Sequence(0, [7] * prompt, limit=8, output=[8] * output)
        seq.cached, seq.chunk, seq.draft = (
            min(cached, prompt + output),
            chunk,
            [9] * draft,
        )
        listed = seq.cached + len(seq.fed_tokens) - len(seq.draft) == len(seq.tokens)
        assert seq.emits == listed, (prompt, output, cached, chunk, draft)
