"""The data-parallel step in one process: two ranks as threads sharing a
hand-made all-reduce. Their weights equal the single-process step's to the
stated tolerance; ranks that
skip the exchange do not."""

import threading

import pytest
import torch

from snippets.measure_collectives.data_parallel import (
    TOLERANCE,
    data_parallel_step,
    single_process_step,
)


def thread_ranks(world: int, exchange: bool = True):
    """Run data_parallel_step on `world` threads; returns each rank's weights."""
    barrier = threading.Barrier(world)
    buffers: dict[int, torch.Tensor] = {}
    out: dict[int, torch.Tensor] = {}

    def rank_body(rank):
        def all_reduce(t):
            buffers[rank] = t.clone()
            barrier.wait()
            total = sum(buffers[r] for r in range(world))
            barrier.wait()
            if exchange:  # the bug when False: each rank keeps its own gradient
                t.copy_(total)

        out[rank] = data_parallel_step(rank, world, all_reduce)[0]

    threads = [threading.Thread(target=rank_body, args=(r,)) for r in range(world)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [out[r] for r in range(world)]


def test_two_ranks_match_one_process():
    reference = single_process_step()
    for weights in thread_ranks(2):
        assert (weights - reference).abs().max().item() <= TOLERANCE


def test_ranks_that_skip_the_exchange_are_caught():
    reference = single_process_step()
    (weights, _) = thread_ranks(2, exchange=False)
    assert (weights - reference).abs().max().item() > TOLERANCE


def test_a_batch_that_does_not_split_is_refused():
    with pytest.raises(ValueError, match="divide evenly"):
        data_parallel_step(0, 3, lambda t: None)
