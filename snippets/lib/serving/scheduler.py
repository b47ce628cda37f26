"""Continuous batching with a paged KV cache: the scheduler, no tensors.

Standard library only, so the same code drives the real engine (engine.py,
which runs the model) and the simulator (simulator.py, which only advances a
clock). docs/inference/serving-engine.md shows it section by section, and
docs/inference/prefix-caching-and-chunked-prefill.md and
docs/inference/speculative-decoding.md the mechanisms added to it: a token
budget per step with chunked prefill, prefix caching, an admission
watermark, and draft tokens verified in one step.
"""

import math
import time
from collections import deque
from dataclasses import dataclass, field

from snippets.lib.serving.blocks import BlockAllocator, blocks_needed


# --8<-- [start:sequence]
@dataclass(eq=False)  # by identity: two requests are two, whatever their fields
class Sequence:
    """One request while it is served. `cached` counts the tokens whose keys
    and values sit in the sequence's blocks; the rest of `tokens` is what the
    next steps must feed (the whole prompt at first, then one token).
    `chunk` is how many tokens the coming step feeds, `draft` the guessed
    tokens it verifies after them."""

    seq_id: int
    prompt: list[int]
    limit: int  # tokens to generate: max_new_tokens, or fewer near the context
    arrival: float = 0.0
    output: list[int] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)  # the block table
    cached: int = 0
    token_times: list[float] = field(default_factory=list)
    preemptions: int = 0
    chunk: int = 0
    draft: list[int] = field(default_factory=list)
    registered: int = 0  # leading blocks already in the prefix cache
    prefix_hit_tokens: int = 0
    recomputed: int = 0  # tokens fed again after its preemptions
    verified: list = field(default_factory=list)  # (proposed, accepted) per decode
    rng: object = None  # a random.Random for sampling, or None for greedy

    @property
    def tokens(self) -> list[int]:
        return self.prompt + self.output

    @property
    def known(self) -> int:
        """len(self.tokens), counted rather than built: the scheduler asks
        it of every sequence at every step."""
        return len(self.prompt) + len(self.output)

    @property
    def done(self) -> bool:
        return len(self.output) >= self.limit

    @property
    def fed_tokens(self) -> list[int]:
        """The tokens the coming step feeds: a prefill chunk, or the last
        token and the draft after it."""
        n = self.chunk or self.known - self.cached
        return (self.tokens + self.draft)[self.cached : self.cached + n]

    @property
    def emits(self) -> bool:
        """Whether the coming step reaches the end of the known tokens and so
        produces a token (a middle chunk of a prefill does not)."""
        # len(self.fed_tokens), counted, not built, like `known`.
        known = self.known
        fed = min(
            self.chunk or known - self.cached, known + len(self.draft) - self.cached
        )
        return self.cached + fed - len(self.draft) == known


# --8<-- [end:sequence]


def check_scheduler_args(max_batch, block_size, num_blocks, token_budget, watermark):
    """One-line errors naming the argument, shared by engine and simulator."""
    for name, value in (
        ("max_batch", max_batch),
        ("block_size", block_size),
        ("num_blocks", num_blocks),
    ):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if token_budget is not None:
        if isinstance(token_budget, bool) or not isinstance(token_budget, int):
            raise TypeError(
                "token_budget must be an int or None, got "
                f"{type(token_budget).__name__}"
            )
        if token_budget < 1:
            raise ValueError(
                f"token_budget must be at least 1 token per step, got {token_budget}"
            )
    if not (isinstance(watermark, int | float) and 0 <= watermark < 1):
        raise ValueError(f"watermark must be a fraction in [0, 1), got {watermark!r}")


class Scheduler:
    """Admits, grows, preempts and retires sequences, one step at a time.

    token_budget: most tokens fed in one step (None: no limit). A prompt
    longer than what is left of the budget is fed in chunks over several
    steps, alongside the running decodes (chunked prefill).
    prefix_caching: full blocks are registered under their content and
    shared, with a holder count, by later sequences that start the same way.
    watermark: a sequence is admitted only if this fraction of the pool stays
    free afterwards (unless nothing is running), leaving room for the running
    sequences to grow instead of preempting them.
    draft: a function (sequence, k) -> up to k guessed next tokens, verified
    in the sequence's next step (speculative decoding); draft_tokens is k."""

    def __init__(
        self,
        *,
        max_batch: int,
        block_size: int,
        num_blocks: int,
        token_budget: int | None = None,
        prefix_caching: bool = False,
        watermark: float = 0.0,
        draft=None,
        draft_tokens: int = 0,
    ):
        check_scheduler_args(max_batch, block_size, num_blocks, token_budget, watermark)
        self.max_batch, self.block_size = max_batch, block_size
        self.token_budget = token_budget
        self.prefix_caching = prefix_caching
        self.watermark_blocks = math.ceil(watermark * num_blocks)
        self.draft, self.draft_tokens = draft, draft_tokens
        self.allocator = BlockAllocator(num_blocks)
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []  # oldest admission first
        self.finished: list[Sequence] = []
        self.preemptions = 0
        self.recomputed_tokens = 0  # tokens fed again after a preemption
        self.proposed = 0  # draft tokens proposed
        self.accepted = 0  # draft tokens the model agreed with
        self.prompt_tokens = 0  # prompt tokens of admitted sequences (first time)
        self.prefix_hit_tokens = 0  # of those, found in the prefix cache

    def add(self, seq: Sequence) -> None:
        self.waiting.append(seq)

    def _grow(self, seq: Sequence, tokens: int) -> None:
        """Give `seq` blocks for `tokens` cached tokens (caller checked room)."""
        while len(seq.blocks) < blocks_needed(tokens, self.block_size):
            seq.blocks.append(self.allocator.allocate(seq.seq_id))

    # --8<-- [start:preempt]
    def _preempt(self, seq: Sequence) -> None:
        """Free every block of `seq` and queue it first in line. Its output
        so far is kept: on readmission the prompt and that output are fed as
        one prefill (recomputation), so the text it returns is unchanged."""
        self.running.remove(seq)
        self.allocator.release(seq.seq_id, seq.blocks)
        seq.blocks, seq.cached, seq.registered = [], 0, 0
        seq.chunk, seq.draft = 0, []
        seq.preemptions += 1
        self.preemptions += 1
        self.waiting.appendleft(seq)

    # --8<-- [end:preempt]

    # --8<-- [start:prefix-lookup]
    def _prefix_keys(self, seq: Sequence) -> list[tuple]:
        """Content keys of the sequence's full blocks that a hit may cover.
        The last known token is always fed, so a hit stops a block short of
        it: every write then lands in a block of the sequence's own, and no
        shared block is ever written (what copy-on-write would guard)."""
        if not self.prefix_caching:
            return []
        tokens, size = seq.tokens, self.block_size
        keys = []
        for i in range((len(tokens) - 1) // size):
            key = tuple(tokens[: (i + 1) * size])
            if self.allocator.cached(key) is None:
                break
            keys.append(key)
        return keys

    # --8<-- [end:prefix-lookup]

    def _register(self, seq: Sequence) -> None:
        """Put the sequence's newly completed full blocks into the cache."""
        if not self.prefix_caching:
            return
        full = seq.cached // self.block_size
        tokens = seq.tokens
        while seq.registered < full:
            i = seq.registered
            key = tuple(tokens[: (i + 1) * self.block_size])
            self.allocator.register(seq.blocks[i], key)
            seq.registered += 1

    # --8<-- [start:schedule]
    def schedule(self) -> list[Sequence]:
        """The sequences the next step runs, each with its `chunk` of tokens:
        running ones first (a decode feeds one token plus its draft, a
        prefill in progress its next chunk), then newly admitted ones, until
        the token budget is spent."""
        budget = self.token_budget or math.inf
        # 1. Running sequences, oldest first. When the pool is dry, the
        #    youngest is preempted.
        for seq in list(self.running):
            if seq not in self.running:
                continue  # preempted below, on behalf of an older sequence
            left = seq.known - seq.cached
            seq.draft = []
            if left == 1 and self.draft is not None and budget > 1:
                room = min(self.draft_tokens, seq.limit - len(seq.output) - 1)
                room = int(min(room, budget - 1))
                seq.draft = list(self.draft(seq, room))[:room] if room > 0 else []
            want = int(min(left + len(seq.draft), budget))
            seq.chunk = want
            if want == 0:
                continue  # the budget is spent: it waits a step
            need = blocks_needed(seq.cached + want, self.block_size) - len(seq.blocks)
            while need > self.allocator.num_free:
                self._preempt(self.running[-1])
                if seq not in self.running:
                    break  # it was the youngest: it waits for its turn
            else:
                self._grow(seq, seq.cached + want)
                budget -= want
        # 2. Admit from the queue, first come first served, while a batch
        #    slot, the budget and the blocks for the whole prompt are there.
        while self.waiting and len(self.running) < self.max_batch and budget >= 1:
            seq = self.waiting[0]
            keys = self._prefix_keys(seq)
            hits_free = sum(
                self.allocator.cached(k) in self.allocator.free for k in keys
            )
            need = blocks_needed(seq.known, self.block_size) - len(keys)
            left_after = self.allocator.num_free - hits_free - need
            if left_after < 0 or (self.running and left_after < self.watermark_blocks):
                break  # no skipping ahead: a long prompt is not starved
            self.waiting.popleft()
            seq.blocks = [self.allocator.share(k, seq.seq_id) for k in keys]
            seq.cached = seq.registered = len(keys) * self.block_size
            if seq.preemptions:
                seq.recomputed += seq.known - seq.cached
                self.recomputed_tokens += seq.known - seq.cached
            else:
                self.prompt_tokens += len(seq.prompt)
                self.prefix_hit_tokens += seq.cached
                seq.prefix_hit_tokens = seq.cached
            self._grow(seq, seq.known)
            seq.draft = []
            seq.chunk = int(min(seq.known - seq.cached, budget))
            budget -= seq.chunk
            self.running.append(seq)
        return [s for s in self.running if s.chunk > 0]

    # --8<-- [end:schedule]

    # --8<-- [start:commit]
    def commit(self, batch: list[Sequence], predictions: list, now: float):
        """Record one step's results. A middle prefill chunk only becomes
        cached. Otherwise `predictions` holds the model's next token after
        the last known token and after each draft token: the draft is kept
        up to its first disagreement, and the model's own token follows, so
        the output is exactly what one-token-at-a-time decoding gives."""
        for seq, predicted in zip(batch, predictions, strict=True):
            predicted = predicted if isinstance(predicted, list) else [predicted]
            known = seq.known
            if not seq.emits:
                seq.cached += seq.chunk
                seq.chunk = 0
                self._register(seq)
                continue
            accepted = 0
            while (
                accepted < len(seq.draft) and predicted[accepted] == seq.draft[accepted]
            ):
                accepted += 1
            self.proposed += len(seq.draft)
            self.accepted += accepted
            if seq.cached == known - 1:  # a decode step: the draft was verified
                seq.verified.append((len(seq.draft), accepted))
            new = seq.draft[:accepted] + [predicted[accepted]]
            seq.cached = known + accepted  # rejected drafts' keys are left behind
            seq.output.extend(new)
            seq.token_times.extend([now] * len(new))
            seq.chunk, seq.draft = 0, []
            self._register(seq)
            if seq.done:
                self.running.remove(seq)
                self.allocator.release(seq.seq_id, seq.blocks)
                seq.blocks = []
                self.finished.append(seq)

    # --8<-- [end:commit]


class WallClock:
    """Seconds since the clock was made; waiting really sleeps."""

    def __init__(self):
        self.start = time.perf_counter()

    def now(self) -> float:
        return time.perf_counter() - self.start

    def wait_until(self, t: float) -> None:
        time.sleep(max(0.0, t - self.now()))


class StepClock:
    """Seconds that move only when told: a step adds its own time, waiting
    jumps ahead. The simulator adds modelled step times; the engine's CPU
    clock adds each step's measured CPU time."""

    def __init__(self):
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def wait_until(self, t: float) -> None:
        self.t = max(self.t, t)


# --8<-- [start:serve]
def serve(scheduler: Scheduler, arrivals: list[Sequence], step, clock) -> list:
    """The serving loop: admit what has arrived, run one step, repeat.
    `step(batch)` returns each sequence's predicted tokens; `clock` is wall
    time for the engine and a simulated clock for the simulator. If
    `scheduler.on_step` is set it is called with the queue length before
    each step (the load generator records it)."""
    pending = deque(sorted(arrivals, key=lambda s: s.arrival))
    total = len(pending)
    watch = getattr(scheduler, "on_step", None)
    while len(scheduler.finished) < total:
        while pending and pending[0].arrival <= clock.now():
            scheduler.add(pending.popleft())
        if not scheduler.waiting and not scheduler.running:
            clock.wait_until(pending[0].arrival)  # idle until the next one
            continue
        batch = scheduler.schedule()
        if watch is not None:
            watch(clock.now(), len(scheduler.waiting), len(pending))
        next_tokens = step(batch)
        scheduler.commit(batch, next_tokens, clock.now())
    return sorted(scheduler.finished, key=lambda s: s.seq_id)


# --8<-- [end:serve]


if __name__ == "__main__":

    class _Tick:  # a clock that advances one unit per step
        t = 0.0

        def now(self):
            return self.t

        def wait_until(self, t):
            self.t = t

    clock = _Tick()

    def fake_step(batch):
        clock.t += 1.0
        return [0] * len(batch)

    sched = Scheduler(max_batch=2, block_size=4, num_blocks=4)
    seqs = [Sequence(i, [1] * 7, limit=4) for i in range(3)]
    done = serve(sched, seqs, fake_step, clock)
    for s in done:
        print(f"seq {s.seq_id}: tokens at steps {s.token_times}")
    print("preemptions:", sched.preemptions, "free blocks:", sched.allocator.num_free)
