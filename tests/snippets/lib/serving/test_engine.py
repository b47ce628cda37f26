"""The serving engine's contract: the same token ids as one request at a
time, for any batch limit and block size and with every mechanism (token
budget and chunked prefill, prefix caching, admission watermark, speculative
decoding, seeded sampling) alone and together; a block pool whose books
balance before every step; every block free at the end."""

import pytest
import torch

from snippets.lib.serving.engine import (
    CHECKPOINT,
    Engine,
    generate_one_at_a_time,
    reference_ids,
)
from snippets.lib.serving.speculative import ngram_draft, wrong_draft

SHARED = "The tiny model reads its weights "  # 33 bytes: 8 full blocks of 4
PROMPTS = [
    "The ",
    "x",
    "caf\u00e9 ",  # a two-byte character: tokens are bytes
    "A kernel that waits on memory",
    "Batching amortises the weights over many requests at once!!",  # near 64
    SHARED + "once",
    SHARED + "once per step",
    SHARED + "once",  # a duplicate: every full block can come from the cache
    "Memory is ",
]
# Long enough that every prompt but the longest generates past position 40,
# where a slot-offset bug (the review's mutant m3) first shows.
NEW = 40
SAMPLING = dict(temperature=0.9, top_p=0.9, seed=11)


@pytest.fixture(scope="module")
def reference():
    torch.set_num_threads(1)
    return reference_ids(CHECKPOINT, PROMPTS, NEW)


@pytest.fixture(scope="module")
def sampled_reference():
    return reference_ids(CHECKPOINT, PROMPTS, NEW, **SAMPLING)


def checked_engine(**options):
    """An engine whose every step first checks the block pool's books: each
    block in a table is held by that sequence; a block in two tables is a
    registered prefix block; the held blocks are exactly the tables' blocks."""
    engine = Engine(CHECKPOINT, **options)
    real_step = engine.step

    def step(batch):
        pool = engine.scheduler.allocator
        tables = [b for seq in engine.scheduler.running for b in seq.blocks]
        assert set(tables) == set(pool.holders), "held blocks differ from tables"
        for b in set(tables):
            if tables.count(b) > 1:
                assert pool.is_shared_content(b), "a block is in two block tables"
        for seq in batch:
            assert all(seq.seq_id in pool.holders[b] for b in seq.blocks)
        return real_step(batch)

    engine.step = step
    return engine


def served(engine, prompts=PROMPTS, new=NEW):
    ids = engine.generate_ids(prompts, new)
    pool = engine.scheduler.allocator
    assert pool.num_free == engine.num_blocks and not pool.holders
    return ids


SMALL = dict(max_batch=6, block_size=4, num_blocks=16)  # one full sequence
CONFIGS = {
    "one-at-a-time": dict(max_batch=1, block_size=64, num_blocks=1),
    "block1-queue": dict(max_batch=6, block_size=1, num_blocks=63),
    "block4-dry": SMALL,
    "block8-dry": dict(max_batch=6, block_size=8, num_blocks=8),
    "budget1": dict(SMALL, num_blocks=64, token_budget=1),
    "budget5-chunked": dict(SMALL, num_blocks=64, token_budget=5),
    "prefix": dict(SMALL, num_blocks=64, prefix_caching=True),
    "prefix-dry": dict(SMALL, num_blocks=20, prefix_caching=True),
    "watermark": dict(SMALL, num_blocks=24, watermark=0.25),
    "watermark-dry": dict(SMALL, num_blocks=17, watermark=0.1),
    "ngram4": dict(SMALL, num_blocks=64, draft=ngram_draft, draft_tokens=4),
    "wrong-draft3": dict(SMALL, num_blocks=24, draft=wrong_draft(), draft_tokens=3),
    "all-dry": dict(
        SMALL,
        num_blocks=18,
        token_budget=6,
        prefix_caching=True,
        watermark=0.1,
        draft=ngram_draft,
        draft_tokens=3,
    ),
}


@torch.no_grad()
def dense_kv(model, tokens):
    """Keys and values of every layer for `tokens`, from a plain causal
    forward of the whole sequence: (layers, tokens, heads, head width)."""
    x = model.token_embedding(torch.tensor([tokens]))
    x = x + model.position_embedding(torch.arange(len(tokens)))
    keys, values = [], []
    for block in model.blocks:
        _, k, v = block.attention.qkv(block.norm1(x)).split(x.shape[-1], -1)
        keys.append(k[0].view(len(tokens), block.attention.heads, -1))
        values.append(v[0].view(len(tokens), block.attention.heads, -1))
        x = block(x)
    return torch.stack(keys), torch.stack(values)


def assert_registered_kv_is_dense(engine):
    """Every block still in the prefix cache holds the keys and values a
    dense forward of its key gives at the key's last block_size positions."""
    pool, size = engine.scheduler.allocator, engine.block_size
    assert pool.key_of, "nothing was registered"
    for block, key in pool.key_of.items():
        k, v = dense_kv(engine.model, list(key))
        torch.testing.assert_close(engine.k_pool[:, block], k[:, -size:])
        torch.testing.assert_close(engine.v_pool[:, block], v[:, -size:])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_token_ids_match_the_reference(name, reference):
    engine = checked_engine(**CONFIGS[name])
    assert served(engine) == reference
    sched = engine.scheduler
    if CONFIGS[name].get("prefix_caching"):
        assert_registered_kv_is_dense(engine)
    if name.endswith("-dry"):
        assert sched.preemptions > 0, "the pool was meant to run dry"
    if "prefix" in name or name == "all-dry":
        assert sched.prefix_hit_tokens > 0
    if "draft" in name or "ngram" in name or name == "all-dry":
        assert sched.proposed > 0


def test_chunked_prefill_feeds_no_step_more_than_the_budget(reference):
    engine = checked_engine(**CONFIGS["budget5-chunked"])
    served(engine)
    fed = [s["prefill_tokens"] + s["decode_tokens"] for s in engine.steps]
    assert max(fed) == 5
    # The longest prompt (60 tokens) needed many steps to be fed.
    assert len(engine.steps) > len(CONFIGS) and min(fed) >= 1


def test_a_wrong_draft_is_rejected_and_the_output_stays_the_models(reference):
    engine = checked_engine(**CONFIGS["wrong-draft3"])
    assert served(engine) == reference
    sched = engine.scheduler
    assert sched.proposed > 300 and sched.accepted / sched.proposed < 0.05


# Two prompts whose full blocks agree up to the last position of one block
# (" abc" against " abd" at block size 4, the ninth block): a content key
# that left out a block's last token would hand the second the first's block.
LAST_TOKEN_PAIR = [SHARED + "abc!", SHARED + "abd!", SHARED + "abc?"]


def test_blocks_that_differ_only_in_their_last_token_are_not_shared():
    from snippets.lib.serving.scheduler import StepClock

    prompts = LAST_TOKEN_PAIR
    expected = reference_ids(CHECKPOINT, prompts, 12)
    engine = checked_engine(
        max_batch=3, block_size=4, num_blocks=64, prefix_caching=True
    )
    clock, checked_step = StepClock(), engine.step

    def step(batch):  # one second per step
        clock.t += 1.0
        return checked_step(batch)

    engine.step = step
    # Each prompt arrives after the one before was fed, while it still runs.
    seqs = engine.sequences(prompts, 12, arrivals=[0.0, 3.0, 6.0])
    done = engine.run(seqs, clock=clock)
    assert [s.output for s in done] == expected
    # The third shares nine blocks with the first (its ninth is " abc");
    # the second shares only the eight blocks of SHARED.
    assert [s.prefix_hit_tokens for s in done] == [0, 32, 36]
    assert_registered_kv_is_dense(engine)


def oracle(reference, kind):
    """A draft that knows the reference output: `right` proposes the next k
    true tokens, `wrong` k tokens that each differ from the truth, `short`
    fewer than k (one true token), `long` k + 3 true tokens (the scheduler
    must cut it to k)."""
    truth = {tuple(p): out for p, out in reference.items()}

    def draft(seq, k):
        out = truth[tuple(seq.prompt)]
        at = len(seq.output)
        if kind == "right":
            return out[at : at + k]
        if kind == "wrong":
            return [(t + 1) % 256 for t in out[at : at + k]]
        if kind == "short":
            return out[at : at + 1]
        return out[at : at + k + 3]

    return draft


@pytest.mark.parametrize("kind", ["right", "wrong", "short", "long"])
def test_oracle_drafts(kind, reference):
    from snippets.lib.tiny_lm.model import encode

    k = 8  # the longest draft: at block size 1 every draft token needs a block
    by_prompt = {
        tuple(encode(p)): out for p, out in zip(PROMPTS, reference, strict=True)
    }
    engine = checked_engine(
        max_batch=6,
        block_size=1,
        num_blocks=6 * 72,  # room for six full sequences and their drafts
        draft=oracle(by_prompt, kind),
        draft_tokens=k,
    )
    done = engine.run(engine.sequences(PROMPTS, NEW))
    assert [s.output for s in done] == reference
    assert engine.scheduler.preemptions == 0  # each prefill emits one token
    steps = [step for s in done for step in s.verified]
    proposed = sum(p for p, _ in steps)
    accepted = sum(a for _, a in steps)
    assert all(p <= k and a <= p for p, a in steps)
    for s in done:  # no draft runs past the reply limit
        # The prefill's token, unless the prompt is one token long: its
        # prefill then counts as a decode step (it feeds the last token).
        emitted = 0 if len(s.prompt) == 1 else 1
        for p, a in s.verified:
            assert p <= s.limit - emitted - 1
            emitted += a + 1
        assert emitted == s.limit
    if kind == "right":
        assert proposed > 0 and accepted == proposed
        assert any(p == k for p, _ in steps)
    elif kind == "wrong":
        assert proposed > 0 and accepted == 0
    elif kind == "short":
        assert max(p for p, _ in steps) == 1 and accepted == proposed
    else:
        assert max(p for p, _ in steps) == k and accepted == proposed


def test_sampling_matches_the_reference_under_the_same_seed(sampled_reference):
    combined = dict(
        SMALL, num_blocks=18, token_budget=6, prefix_caching=True, watermark=0.1
    )
    for options in (SMALL, dict(SMALL, num_blocks=64, token_budget=5), combined):
        engine = checked_engine(**options, **SAMPLING)
        assert served(engine) == sampled_reference
    # Not greedy in disguise, and the seed matters.
    assert sampled_reference != reference_ids(CHECKPOINT, PROMPTS[:3], NEW)[:3]
    other = reference_ids(CHECKPOINT, PROMPTS[:3], NEW, **{**SAMPLING, "seed": 12})
    assert other != sampled_reference[:3]


def test_the_watermark_cuts_preemptions():
    prompts = [PROMPTS[i % len(PROMPTS)] for i in range(18)]
    counts = {}
    for watermark in (0.0, 0.3):
        engine = Engine(
            CHECKPOINT, max_batch=8, block_size=4, num_blocks=24, watermark=watermark
        )
        engine.generate_ids(prompts, 24)
        counts[watermark] = engine.scheduler.preemptions
    assert counts[0.3] < counts[0.0]


def test_a_write_into_a_cached_block_would_be_caught():
    """Known-wrong variant: a sequence whose table points at a cached block
    it would write into (copy-on-write is what a real engine would do)."""
    engine = Engine(
        CHECKPOINT, max_batch=2, block_size=4, num_blocks=16, prefix_caching=True
    )
    engine.generate_ids([SHARED], 1)  # registers the shared prompt's blocks
    pool = engine.scheduler.allocator
    (seq,) = engine.sequences(["ab"], 2)
    seq.blocks = [next(iter(pool.key_of))]
    with pytest.raises(RuntimeError, match="cached block"):
        engine.step([seq])


def test_a_shared_block_would_be_caught():
    """Known-wrong variant: an allocator that gives block 0 to everyone."""
    engine = checked_engine(max_batch=2, block_size=64, num_blocks=2)
    engine.generate(["a"], 1)  # builds the scheduler
    seqs = engine.sequences(["ab", "cd"], 2)
    for seq in seqs:
        seq.blocks = [0]
    engine.scheduler.running = seqs
    engine.scheduler.allocator.holders = {0: {0}}
    with pytest.raises(AssertionError, match="two block tables"):
        engine.step(seqs)


def test_text_reference_is_the_decoded_ids(reference):
    from snippets.lib.tiny_lm.model import decode

    texts = generate_one_at_a_time(CHECKPOINT, PROMPTS[:2], NEW)
    assert texts == [decode(ids) for ids in reference[:2]]


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


BASE = dict(max_batch=2, block_size=8, num_blocks=8)


@pytest.mark.parametrize(
    "options, name",
    [
        (dict(BASE, max_batch=0), "max_batch"),
        (dict(BASE, num_blocks=7), "num_blocks"),  # smaller than one sequence
        (dict(BASE, block_size="8"), "block_size"),
        (dict(BASE, token_budget=0), "token_budget"),
        (dict(BASE, token_budget=-3), "token_budget"),
        (dict(BASE, watermark=1.0), "watermark"),
        (dict(BASE, watermark=-0.1), "watermark"),
        (dict(BASE, temperature=-1.0), "temperature"),
        (dict(BASE, top_p=0.0), "top_p"),
        (dict(BASE, draft=ngram_draft, draft_tokens=0), "draft_tokens"),
        (dict(BASE, draft=ngram_draft, draft_tokens=2, temperature=0.5), "draft"),
    ],
)
def test_bad_engine_options_name_the_argument(options, name):
    with pytest.raises((ValueError, TypeError), match=name) as caught:
        Engine(CHECKPOINT, **options)
    assert "\n" not in str(caught.value)
