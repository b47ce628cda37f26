"""A small serving engine for the tiny language model: continuous batching
over a paged KV cache, greedy or seeded sampling (docs/inference/serving-engine.md).

The scheduler (scheduler.py) decides which sequences run each step; this
file owns the tensors: the block pool of keys and values, and one forward
pass over a flat batch that mixes prefills and decodes, as Orca's selective
batching does. The engine computes in float64 so that batching, which
reorders floating-point sums, cannot flip a greedy choice; the contract
test compares it with the plain one-request-at-a-time loop, token id for
token id, with every mechanism of the scheduler switched on alone and
together.
"""

import math
import random
import time
from pathlib import Path

import torch

from snippets.lib.serving.blocks import blocks_needed
from snippets.lib.serving.scheduler import (
    Scheduler,
    Sequence,
    StepClock,
    WallClock,
    check_scheduler_args,
    serve,
)
from snippets.lib.tiny_lm.checkpoint import load_checkpoint
from snippets.lib.tiny_lm.model import decode, encode

ROOT = Path(__file__).resolve().parents[3]
CHECKPOINT = ROOT / "results" / "tiny_lm" / "checkpoint.pt"
DTYPE = torch.float64


# --8<-- [start:validate]
def check_request(prompts, max_new_tokens, context: int) -> list[list[int]]:
    """Token ids for each prompt, or an error that names the bad argument."""
    if not isinstance(prompts, list):
        raise TypeError(f"prompts must be a list of str, got {type(prompts).__name__}")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int):
        raise TypeError(
            f"max_new_tokens must be an int, got {type(max_new_tokens).__name__}"
        )
    if max_new_tokens < 1:
        raise ValueError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
    ids = []
    for i, prompt in enumerate(prompts):
        if not isinstance(prompt, str):
            raise TypeError(f"prompts[{i}] must be a str, got {type(prompt).__name__}")
        tokens = encode(prompt)
        if not tokens:
            raise ValueError(f"prompts[{i}] is empty")
        if len(tokens) >= context:
            raise ValueError(
                f"prompts[{i}] has {len(tokens)} tokens; the model's context is "
                f"{context}, so a prompt may have at most {context - 1}"
            )
        ids.append(tokens)
    return ids


# --8<-- [end:validate]


def output_limit(prompt_len: int, max_new_tokens: int, context: int) -> int:
    """Tokens a sequence may generate: prompt and output share the context."""
    return min(max_new_tokens, context - prompt_len)


# --8<-- [start:sampling]
def check_sampling(temperature, top_p) -> None:
    if not (isinstance(temperature, int | float) and temperature >= 0):
        raise ValueError(f"temperature must be a number >= 0, got {temperature!r}")
    if not (isinstance(top_p, int | float) and 0 < top_p <= 1):
        raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")


def request_rng(seed: int, index: int) -> random.Random:
    """Each request draws from its own generator, seeded by the run's seed
    and its index: its tokens then do not depend on what it was batched with."""
    return random.Random(f"{seed}:{index}")


def pick(logits: torch.Tensor, temperature: float, top_p: float, rng) -> int:
    """The next token: the argmax when temperature is 0; otherwise a draw
    from the smallest set of most likely tokens whose probability reaches
    top_p (nucleus sampling), at the given temperature."""
    if temperature == 0:
        return int(logits.argmax())
    probs = (logits.to(torch.float64) / temperature).softmax(-1)
    ordered, index = probs.sort(descending=True, stable=True)
    before = ordered.cumsum(0) - ordered  # probability of the tokens ahead
    kept = ordered[before < top_p]
    u = rng.random() * float(kept.sum())
    position = int((kept.cumsum(0) <= u).sum())
    return int(index[min(position, len(kept) - 1)])


# --8<-- [end:sampling]


# --8<-- [start:reference]
@torch.no_grad()
def reference_ids(
    checkpoint_path, prompts, max_new_tokens, *, temperature=0.0, top_p=1.0, seed=0
) -> list[list[int]]:
    """The reference: one prompt at a time, the whole sequence recomputed for
    every token, no cache, no batch. Slow and obviously right."""
    check_sampling(temperature, top_p)
    model = load_checkpoint(checkpoint_path).to(DTYPE)
    context = model.config["context"]
    outputs = []
    for i, tokens in enumerate(check_request(prompts, max_new_tokens, context)):
        rng, out = request_rng(seed, i), []
        for _ in range(output_limit(len(tokens), max_new_tokens, context)):
            logits = model(torch.tensor([tokens + out]))[0, -1]
            out.append(pick(logits, temperature, top_p, rng))
        outputs.append(out)
    return outputs


def generate_one_at_a_time(checkpoint_path, prompts, max_new_tokens):
    """The reference's greedy texts."""
    return [decode(o) for o in reference_ids(checkpoint_path, prompts, max_new_tokens)]


# --8<-- [end:reference]


class Engine:
    """Serve the tiny model with continuous batching and a paged KV cache."""

    # --8<-- [start:pool]
    def __init__(
        self,
        checkpoint_path,
        *,
        max_batch,
        block_size,
        num_blocks,
        token_budget=None,
        prefix_caching=False,
        watermark=0.0,
        draft=None,
        draft_tokens=0,
        temperature=0.0,
        top_p=1.0,
        seed=0,
        device="cpu",
    ):
        check_scheduler_args(max_batch, block_size, num_blocks, token_budget, watermark)
        check_sampling(temperature, top_p)
        if isinstance(draft_tokens, bool) or not isinstance(draft_tokens, int):
            raise TypeError(f"draft_tokens must be an int, got {draft_tokens!r}")
        if draft_tokens < 0 or (draft is not None and draft_tokens < 1):
            raise ValueError(
                f"draft_tokens must be at least 1 with a draft, got {draft_tokens}"
            )
        if draft is not None and temperature > 0:
            raise ValueError(
                "draft: speculative decoding here verifies greedy choices only; "
                "use temperature=0 with a draft"
            )
        self.options = dict(
            token_budget=token_budget,
            prefix_caching=prefix_caching,
            watermark=watermark,
            draft=draft,
            draft_tokens=draft_tokens,
        )
        self.temperature, self.top_p, self.seed = temperature, top_p, seed
        self.model = load_checkpoint(checkpoint_path).to(device=device, dtype=DTYPE)
        cfg = self.model.config
        self.context = cfg["context"]
        # The longest sequence caches context - 1 tokens (its last token is
        # never fed back), and it must fit alone or nothing could progress.
        least = blocks_needed(self.context - 1, block_size)
        if num_blocks < least:
            raise ValueError(
                f"num_blocks must be at least {least} for block_size "
                f"{block_size}: one sequence of the full context must fit"
            )
        self.max_batch, self.block_size, self.num_blocks = (
            max_batch,
            block_size,
            num_blocks,
        )
        self.heads, self.head_width = cfg["heads"], cfg["width"] // cfg["heads"]
        # One pool per layer for keys and one for values:
        # (num_blocks, block_size, heads, head_width), addressed by block number.
        shape = (cfg["layers"], num_blocks, block_size, self.heads, self.head_width)
        self.k_pool = torch.zeros(shape, dtype=DTYPE, device=device)
        self.v_pool = torch.zeros(shape, dtype=DTYPE, device=device)
        self.device = device
        self.steps: list[dict] = []  # per-step sizes and seconds, for the simulator
        self.scheduler = None

    # --8<-- [end:pool]

    # --8<-- [start:slots]
    def _slots(self, batch, fed):
        """Where each fed token's key and value go: (block, offset) through
        the sequence's block table, for positions cached .. cached + fed - 1."""
        blocks, offsets = [], []
        shared = self.scheduler.allocator.is_shared_content if self.scheduler else None
        for seq, n in zip(batch, fed, strict=True):
            for pos in range(seq.cached, seq.cached + n):
                block = seq.blocks[pos // self.block_size]
                if shared is not None and shared(block):
                    raise RuntimeError(
                        f"sequence {seq.seq_id} would write position {pos} into "
                        f"cached block {block}, which others may share"
                    )
                blocks.append(block)
                offsets.append(pos % self.block_size)
        return (
            torch.tensor(blocks, device=self.device),
            torch.tensor(offsets, device=self.device),
        )

    # --8<-- [end:slots]

    # --8<-- [start:attention]
    def _attend(self, layer, q, batch, fed):
        """Attention for each sequence over its cached keys and values,
        gathered from the pool through its block table. q: (tokens, heads,
        head_width) for the whole flat batch; returns the same shape."""
        outs, start = [], 0
        for seq, n in zip(batch, fed, strict=True):
            length = seq.cached + n  # keys this sequence's queries may see
            table = torch.tensor(seq.blocks, device=self.device)
            k = self.k_pool[layer, table].flatten(0, 1)[:length]
            v = self.v_pool[layer, table].flatten(0, 1)[:length]
            qs = q[start : start + n].transpose(0, 1)  # (heads, n, head_width)
            scores = qs @ k.permute(1, 2, 0) / math.sqrt(self.head_width)
            # Query i sits at position cached + i and sees keys 0 .. cached + i.
            future = torch.ones(n, length, dtype=torch.bool, device=self.device)
            scores = scores.masked_fill(future.triu(seq.cached + 1), float("-inf"))
            outs.append((scores.softmax(-1) @ v.transpose(0, 1)).transpose(0, 1))
            start += n
        return torch.cat(outs)

    # --8<-- [end:attention]

    # --8<-- [start:step]
    @torch.no_grad()
    def step(self, batch: list[Sequence]) -> list[int]:
        """One forward pass over every token the batch feeds, flattened into
        one matrix: the linear layers see all of them at once (that is what
        batching buys); attention runs per sequence over its own blocks."""
        started, cpu_started = time.perf_counter(), time.thread_time()
        feeds = [seq.fed_tokens for seq in batch]
        fed = [len(f) for f in feeds]
        ids = torch.tensor([t for f in feeds for t in f], device=self.device)
        pos = torch.tensor(
            [
                p
                for s, n in zip(batch, fed, strict=True)
                for p in range(s.cached, s.cached + n)
            ],
            device=self.device,
        )
        blocks, offsets = self._slots(batch, fed)
        m = self.model
        x = m.token_embedding(ids) + m.position_embedding(pos)  # (tokens, width)
        for layer, block in enumerate(m.blocks):
            q, k, v = block.attention.qkv(block.norm1(x)).split(x.shape[-1], -1)
            heads = (-1, self.heads, self.head_width)
            self.k_pool[layer, blocks, offsets] = k.view(heads)  # write the cache
            self.v_pool[layer, blocks, offsets] = v.view(heads)
            mixed = self._attend(layer, q.view(heads), batch, fed)
            x = x + block.attention.out(mixed.flatten(1))
            x = x + block.mlp(block.norm2(x))
        ends = torch.tensor(fed).cumsum(0).tolist()
        # Logits where a token comes out: after the last known token, and
        # after each draft token (a middle prefill chunk emits none).
        rows, wanted = [], []
        for seq, end in zip(batch, ends, strict=True):
            k = len(seq.draft) + 1 if seq.emits else 0
            wanted.append(k)
            rows.extend(range(end - k, end))
        logits = m.head(m.norm(x[torch.tensor(rows, dtype=torch.long)])).cpu()
        next_tokens, at = [], 0
        for seq, k in zip(batch, wanted, strict=True):
            if self.temperature == 0:
                next_tokens.append(logits[at : at + k].argmax(-1).tolist())
            elif k:  # k == 1: sampling runs without a draft
                next_tokens.append(
                    [pick(logits[at], self.temperature, self.top_p, seq.rng)]
                )
            else:  # a middle prefill chunk draws nothing
                next_tokens.append([])
            at += k
        decoding = [seq.cached == len(seq.tokens) - 1 and seq.emits for seq in batch]
        self.steps.append(
            {
                "seqs": len(batch),
                "prefill_tokens": sum(
                    n for n, d in zip(fed, decoding, strict=True) if not d
                ),
                "decode_tokens": sum(
                    n for n, d in zip(fed, decoding, strict=True) if d
                ),
                "seconds": time.perf_counter() - started,
                "cpu_seconds": time.thread_time() - cpu_started,
            }
        )
        return next_tokens

    # --8<-- [end:step]

    # --8<-- [start:generate]
    def sequences(self, prompts, max_new_tokens, arrivals=None) -> list[Sequence]:
        """Checked prompts as Sequences, arriving at `arrivals` (seconds)."""
        ids = check_request(prompts, max_new_tokens, self.context)
        arrivals = arrivals or [0.0] * len(ids)
        return [
            Sequence(
                i,
                tokens,
                output_limit(len(tokens), max_new_tokens, self.context),
                arrival=t,
                rng=request_rng(self.seed, i) if self.temperature > 0 else None,
            )
            for i, (tokens, t) in enumerate(zip(ids, arrivals, strict=True))
        ]

    def run(self, seqs: list[Sequence], clock=None, on_step=None) -> list[Sequence]:
        """Serve `seqs` (each arriving at its .arrival) to completion;
        `on_step(now, waiting, not_yet_arrived)` is called before each step.
        clock: None for wall time; "cpu" for a clock that advances by each
        step's CPU time (the thread's, so torch must run on one thread) and
        jumps over idle time; or any object with now() and wait_until()."""
        self.scheduler = Scheduler(
            max_batch=self.max_batch,
            block_size=self.block_size,
            num_blocks=self.num_blocks,
            **self.options,
        )
        self.scheduler.on_step = on_step
        if clock != "cpu":
            return serve(self.scheduler, seqs, self.step, clock or WallClock())
        # The CPU clock: time moves by each step's CPU time, so other
        # processes on a shared machine do not stretch the run.
        cpu = StepClock()

        def step(batch):
            tokens = self.step(batch)
            cpu.t += self.steps[-1]["cpu_seconds"]
            self.steps[-1]["seconds"] = self.steps[-1]["cpu_seconds"]
            return tokens

        return serve(self.scheduler, seqs, step, cpu)

    def generate_ids(self, prompts: list[str], max_new_tokens: int) -> list[list[int]]:
        """Every prompt's generated token ids, served as one workload."""
        return [seq.output for seq in self.run(self.sequences(prompts, max_new_tokens))]

    def generate(self, prompts: list[str], max_new_tokens: int) -> list[str]:
        """Continuations of every prompt, served as one workload."""
        return [decode(ids) for ids in self.generate_ids(prompts, max_new_tokens)]

    # --8<-- [end:generate]


if __name__ == "__main__":
    torch.set_num_threads(1)
    prompts = ["The ", "A kernel", "Memory is ", "x", "Batching"]
    engine = Engine(CHECKPOINT, max_batch=3, block_size=4, num_blocks=16)
    ids = engine.generate_ids(prompts, max_new_tokens=12)
    reference = reference_ids(CHECKPOINT, prompts, 12)
    for prompt, out in zip(prompts, ids, strict=True):
        print(f"{prompt!r:12} -> {decode(out)!r}")
    print("same token ids as one at a time:", ids == reference)
    print("steps:", len(engine.steps), "preemptions:", engine.scheduler.preemptions)
    print("blocks free at the end:", engine.scheduler.allocator.num_free, "of 16")
