"""The scheduler alone, with a fake model: queueing, preemption and the
order tokens come out, checked without any tensors."""

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
