"""The serving engine's contract: the same text as one request at a time,
for any batch limit and block size, and a block pool that never hands one
block to two sequences and ends with every block free."""

import pytest
import torch

from snippets.lib.serving.engine import (
    CHECKPOINT,
    Engine,
    generate_one_at_a_time,
)

PROMPTS = [
    "The ",
    "x",
    "caf\u00e9 ",  # a two-byte character: tokens are bytes
    "A kernel that waits on memory",
    "Batching amortises the weights over many requests at once!!",  # near 64
    "Memory is ",
]
NEW = 6


@pytest.fixture(scope="module")
def reference():
    torch.set_num_threads(1)
    return generate_one_at_a_time(CHECKPOINT, PROMPTS, NEW)


def checked_engine(**sizes):
    """An engine whose every step first checks the block pool's books."""
    engine = Engine(CHECKPOINT, **sizes)
    real_step = engine.step

    def step(batch):
        owned = [b for seq in batch for b in seq.blocks]
        assert len(owned) == len(set(owned)), "a block is in two block tables"
        assert set(owned) == set(engine.scheduler.allocator.owner)
        for seq in batch:
            assert all(
                engine.scheduler.allocator.owner[b] == seq.seq_id for b in seq.blocks
            )
        return real_step(batch)

    engine.step = step
    return engine


@pytest.mark.parametrize(
    "sizes, preempts",
    [
        (dict(max_batch=1, block_size=64, num_blocks=1), False),
        (dict(max_batch=3, block_size=4, num_blocks=64), False),
        (dict(max_batch=6, block_size=1, num_blocks=63), False),  # queues
        (dict(max_batch=6, block_size=8, num_blocks=8), True),  # preempts
        (dict(max_batch=6, block_size=4, num_blocks=16), True),  # preempts
    ],
    ids=["one-at-a-time", "batch3-block4", "block1-queue", "block8-dry", "block4-dry"],
)
def test_generate_matches_the_reference_and_frees_every_block(
    sizes, preempts, reference
):
    engine = checked_engine(**sizes)
    assert engine.generate(PROMPTS, NEW) == reference
    pool = engine.scheduler.allocator
    assert pool.num_free == sizes["num_blocks"] and not pool.owner
    assert (engine.scheduler.preemptions > 0) == preempts


def test_a_prompt_near_the_context_stops_at_the_context(reference):
    long = PROMPTS[4]
    assert len(reference[4]) == min(NEW, 64 - len(long.encode()))


def test_a_shared_block_would_be_caught():
    """Known-wrong variant: an allocator that gives block 0 to everyone."""
    engine = checked_engine(max_batch=2, block_size=64, num_blocks=2)
    engine.generate(["a"], 1)  # builds the scheduler
    with pytest.raises(AssertionError, match="two block tables"):
        seqs = engine.sequences(["ab", "cd"], 2)
        for seq in seqs:
            seq.blocks = [0]
        engine.step(seqs)


@pytest.mark.parametrize(
    "prompts, new, error, name",
    [
        ([""], 2, ValueError, "prompts\\[0\\]"),
        (["ok", "y" * 64], 2, ValueError, "prompts\\[1\\]"),
        (["ok"], 0, ValueError, "max_new_tokens"),
        (["ok"], 1.5, TypeError, "max_new_tokens"),
        (["ok", 7], 2, TypeError, "prompts\\[1\\]"),
        ("ok", 2, TypeError, "prompts"),
    ],
    ids=["empty", "too-long", "zero-new", "float-new", "not-a-str", "not-a-list"],
)
def test_bad_input_names_the_argument(prompts, new, error, name):
    engine = Engine(CHECKPOINT, max_batch=2, block_size=8, num_blocks=8)
    with pytest.raises(error, match=name):
        engine.generate(prompts, new)
    with pytest.raises(error, match=name):
        generate_one_at_a_time(CHECKPOINT, prompts, new)


@pytest.mark.parametrize(
    "sizes, name",
    [
        (dict(max_batch=0, block_size=8, num_blocks=8), "max_batch"),
        (dict(max_batch=2, block_size=8, num_blocks=7), "num_blocks"),
        (dict(max_batch=2, block_size="8", num_blocks=8), "block_size"),
    ],
)
def test_bad_engine_sizes_name_the_argument(sizes, name):
    with pytest.raises((ValueError, TypeError), match=name):
        Engine(CHECKPOINT, **sizes)
