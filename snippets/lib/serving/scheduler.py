"""Continuous batching with a paged KV cache: the scheduler, no tensors.

Standard library only, so the same code drives the real engine (engine.py,
which runs the model) and the simulator (simulator.py, which only advances a
clock). docs/inference/serving-engine.md shows it section by section.
"""

import time
from collections import deque
from dataclasses import dataclass, field

from snippets.lib.serving.blocks import BlockAllocator, blocks_needed


# --8<-- [start:sequence]
@dataclass
class Sequence:
    """One request while it is served. `cached` counts the tokens whose keys
    and values sit in the sequence's blocks; the rest of `tokens` is what the
    next step must feed (the whole prompt at first, then one token)."""

    seq_id: int
    prompt: list[int]
    limit: int  # tokens to generate: max_new_tokens, or fewer near the context
    arrival: float = 0.0
    output: list[int] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)  # the block table
    cached: int = 0
    token_times: list[float] = field(default_factory=list)
    preemptions: int = 0

    @property
    def tokens(self) -> list[int]:
        return self.prompt + self.output

    @property
    def done(self) -> bool:
        return len(self.output) >= self.limit


# --8<-- [end:sequence]


class Scheduler:
    """Admits, grows, preempts and retires sequences, one step at a time."""

    def __init__(self, *, max_batch: int, block_size: int, num_blocks: int):
        self.max_batch, self.block_size = max_batch, block_size
        self.allocator = BlockAllocator(num_blocks)
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []  # oldest admission first
        self.finished: list[Sequence] = []
        self.preemptions = 0

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
        seq.blocks, seq.cached = [], 0
        seq.preemptions += 1
        self.preemptions += 1
        self.waiting.appendleft(seq)

    # --8<-- [end:preempt]

    # --8<-- [start:schedule]
    def schedule(self) -> list[Sequence]:
        """The sequences the next step runs: every running one (each feeds
        one token) plus newly admitted ones (each feeds its prefill)."""
        # 1. Each running sequence needs room for one more token. Oldest
        #    first; when the pool is dry, the youngest is preempted.
        for seq in list(self.running):
            if seq not in self.running:
                continue  # preempted below, on behalf of an older sequence
            need = blocks_needed(seq.cached + 1, self.block_size) - len(seq.blocks)
            while need > self.allocator.num_free:
                self._preempt(self.running[-1])
                if seq not in self.running:
                    break  # it was the youngest: it waits for its turn
            else:
                self._grow(seq, seq.cached + 1)
        # 2. Admit from the queue, first come first served, while a batch
        #    slot and the blocks for the whole prefill are free.
        while self.waiting and len(self.running) < self.max_batch:
            seq = self.waiting[0]
            need = blocks_needed(len(seq.tokens), self.block_size)
            if need > self.allocator.num_free:
                break  # no skipping ahead: a long prompt is not starved
            self.waiting.popleft()
            self._grow(seq, len(seq.tokens))
            self.running.append(seq)
        return list(self.running)

    # --8<-- [end:schedule]

    # --8<-- [start:commit]
    def commit(self, batch: list[Sequence], next_tokens: list[int], now: float):
        """Record one step's results: every fed token is now cached, each
        sequence gains its next token, finished ones return their blocks."""
        for seq, token in zip(batch, next_tokens, strict=True):
            seq.cached = len(seq.tokens)
            seq.output.append(token)
            seq.token_times.append(now)
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


# --8<-- [start:serve]
def serve(scheduler: Scheduler, arrivals: list[Sequence], step, clock) -> list:
    """The serving loop: admit what has arrived, run one step, repeat.
    `step(batch)` returns each sequence's next token; `clock` is wall time
    for the engine and a simulated clock for the simulator."""
    pending = deque(sorted(arrivals, key=lambda s: s.arrival))
    total = len(pending)
    while len(scheduler.finished) < total:
        while pending and pending[0].arrival <= clock.now():
            scheduler.add(pending.popleft())
        if not scheduler.waiting and not scheduler.running:
            clock.wait_until(pending[0].arrival)  # idle until the next one
            continue
        batch = scheduler.schedule()
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
