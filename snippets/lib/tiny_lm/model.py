"""A tiny decoder-only transformer in plain PyTorch, every piece spelled out.

docs/start/tiny-language-model.ipynb shows each top-level definition below in
its own code cell; `python -m scripts.tiny_lm` copies them there, and
tests/snippets/tiny_language_model/test_notebook.py fails if a cell and this
file differ.
Keep lines under about 80 columns: the page shows them as they are.
"""

import math
import time

import torch
import torch.nn.functional as F
from torch import nn


def encode(text):
    """Text to token ids: one token per UTF-8 byte, so the vocabulary is the
    256 possible byte values and no character is ever unknown."""
    return list(text.encode("utf-8"))


def decode(token_ids):
    """Token ids back to text. A sampled byte run need not be valid UTF-8,
    so broken sequences become the replacement character."""
    return bytes(token_ids).decode("utf-8", errors="replace")


def split_corpus(text, heldout_fraction=0.1):
    """Encode the corpus and cut it in two: the first part to train on, the
    last `heldout_fraction` kept back to measure what the model learned."""
    if not 0 < heldout_fraction < 1:
        raise ValueError(
            f"heldout_fraction must lie strictly between 0 and 1, "
            f"got {heldout_fraction}"
        )
    token_ids = torch.tensor(encode(text))
    cut = int(token_ids.numel() * (1 - heldout_fraction))
    return token_ids[:cut], token_ids[cut:]


def get_batch(token_ids, batch_size, context, generator):
    """Cut `batch_size` random windows of `context + 1` tokens from a 1-D
    tensor. Targets are the inputs shifted left by one: position t must
    predict token t + 1."""
    if token_ids.numel() <= context + 1:
        raise ValueError(
            f"token_ids has {token_ids.numel()} tokens; need more than "
            f"context + 1 = {context + 1}"
        )
    starts = torch.randint(
        0, token_ids.numel() - context - 1, (batch_size,), generator=generator
    )
    windows = torch.stack([token_ids[s : s + context + 1] for s in starts])
    return windows[:, :-1], windows[:, 1:]


def causal_attention(q, k, v):
    """Scaled dot-product attention where a position sees only itself and
    the positions before it. q, k, v: (batch, heads, time, head_width)."""
    time_steps, head_width = q.shape[-2], q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(head_width)
    # Row t may look at columns 0..t: the future is masked out.
    future = torch.ones(time_steps, time_steps, dtype=torch.bool).triu(1)
    scores = scores.masked_fill(future, float("-inf"))
    weights = scores.softmax(dim=-1)  # each row sums to 1
    return weights @ v


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention: project to queries, keys and values, split
    the width into heads, attend, then merge the heads and project back."""

    def __init__(self, width, heads):
        super().__init__()
        if width % heads:
            raise ValueError(f"width {width} is not divisible by heads {heads}")
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        batch, time_steps, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=-1)

        def split_heads(t):  # (B, T, W) -> (B, heads, T, W / heads)
            return t.view(batch, time_steps, self.heads, -1).transpose(1, 2)

        mixed = causal_attention(split_heads(q), split_heads(k), split_heads(v))
        merged = mixed.transpose(1, 2).reshape(batch, time_steps, width)
        return self.out(merged)


class MLP(nn.Module):
    """Per-position feed-forward network: widen 4x, GELU, narrow back."""

    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    """One transformer layer. Each sublayer reads a normalised copy of the
    stream and adds its result back (pre-norm residual)."""

    def __init__(self, width, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attention = CausalSelfAttention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = MLP(width)

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyLM(nn.Module):
    """Token and position embeddings, a stack of blocks, a final norm, and a
    linear head that scores every possible next byte."""

    def __init__(self, vocab=256, context=64, width=64, heads=4, layers=2):
        super().__init__()
        # Everything needed to rebuild the same shapes from a checkpoint.
        self.config = dict(
            vocab=vocab,
            context=context,
            width=width,
            heads=heads,
            layers=layers,
        )
        self.token_embedding = nn.Embedding(vocab, width)
        self.position_embedding = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, token_ids):
        batch, time_steps = token_ids.shape
        if time_steps > self.config["context"]:
            raise ValueError(
                f"token_ids has {time_steps} positions; the model was built "
                f"for at most context={self.config['context']}"
            )
        positions = torch.arange(time_steps)
        x = self.token_embedding(token_ids) + self.position_embedding(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))  # (batch, time, vocab) logits


def next_token_loss(model, inputs, targets):
    """Mean cross-entropy (in nats) of the model's next-byte predictions."""
    logits = model(inputs)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


class Adam:
    """Adam with decoupled weight decay (AdamW), written out so the two
    state tensors it keeps per parameter are in plain sight."""

    def __init__(
        self,
        params,
        lr,
        betas=(0.9, 0.99),
        eps=1e-8,
        weight_decay=0.01,
    ):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.weight_decay = weight_decay
        self.steps = 0
        # First and second moment estimates: each the size of the weights.
        self.mean = [torch.zeros_like(p) for p in self.params]
        self.square = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        self.steps += 1
        beta1, beta2 = self.betas
        # Early averages lean towards their zero start; these undo that.
        fix1 = 1 - beta1**self.steps
        fix2 = 1 - beta2**self.steps
        moments = zip(self.params, self.mean, self.square, strict=True)
        for p, mean, square in moments:
            mean.lerp_(p.grad, 1 - beta1)
            square.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            p.mul_(1 - self.lr * self.weight_decay)
            denom = (square / fix2).sqrt_().add_(self.eps)
            p.addcdiv_(mean, denom, value=-self.lr / fix1)


def train(
    model,
    optimizer,
    train_ids,
    heldout_ids,
    steps,
    batch_size,
    generator,
    eval_every=100,
):
    """Run `steps` optimizer steps on random windows of `train_ids`, the
    learning rate falling linearly to zero. Records every step's loss and
    CPU wall time, and the held-out loss every `eval_every` steps."""
    context = model.config["context"]
    peak_lr = optimizer.lr
    history = dict(step_loss=[], step_seconds=[], heldout=[])
    for step in range(steps):
        if step % eval_every == 0:
            history["heldout"].append((step, heldout_loss(model, heldout_ids)))
        started = time.perf_counter()
        model.train()
        optimizer.lr = peak_lr * (1 - step / steps)
        inputs, targets = get_batch(train_ids, batch_size, context, generator)
        loss = next_token_loss(model, inputs, targets)  # forward
        optimizer.zero_grad()
        loss.backward()  # a gradient for every parameter
        optimizer.step()  # move every weight against its gradient
        history["step_loss"].append(loss.item())
        history["step_seconds"].append(time.perf_counter() - started)
    history["heldout"].append((steps, heldout_loss(model, heldout_ids)))
    return history


@torch.no_grad()
def heldout_loss(model, token_ids):
    """Mean next-byte loss over every full, non-overlapping window of
    `token_ids`: deterministic, so a saved model reproduces it exactly."""
    context = model.config["context"]
    windows = (token_ids.numel() - 1) // context
    if windows < 1:
        raise ValueError(
            f"token_ids has {token_ids.numel()} tokens; need at least "
            f"context + 1 = {context + 1}"
        )
    used = token_ids[: windows * context + 1]
    inputs = used[:-1].view(windows, context)
    targets = used[1:].view(windows, context)
    model.eval()
    return next_token_loss(model, inputs, targets).item()


@torch.no_grad()
def sample(model, prompt, new_tokens, generator, temperature=0.8):
    """Extend `prompt` one byte at a time, drawing each next byte from the
    model's softmax; lower temperature picks likely bytes more often."""
    context = model.config["context"]
    model.eval()
    token_ids = torch.tensor([encode(prompt)])
    for _ in range(new_tokens):
        logits = model(token_ids[:, -context:])[:, -1, :]
        probs = (logits / temperature).softmax(dim=-1)
        next_id = torch.multinomial(probs, 1, generator=generator)
        token_ids = torch.cat([token_ids, next_id], dim=1)
    return decode(token_ids[0].tolist())


def saved_activation_bytes(model, inputs, targets):
    """Bytes autograd keeps between forward and backward for one batch,
    counted from the tensors it saves (weights excluded, shared storage
    counted once)."""
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    storages = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            storages[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model.train()
        next_token_loss(model, inputs, targets)
    return sum(storages.values())


if __name__ == "__main__":
    torch.manual_seed(0)
    demo = TinyLM(context=16, width=32, heads=2, layers=1)
    ids = torch.tensor(encode("bytes in, bytes out. " * 8))
    g = torch.Generator().manual_seed(0)
    x, y = get_batch(ids, 4, 16, g)
    print("inputs", tuple(x.shape), "logits", tuple(demo(x).shape))
    history = train(demo, Adam(demo.parameters(), lr=1e-2), ids, ids, 30, 8, g)
    losses = history["step_loss"]
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f} after 30 steps")
    print(repr(sample(demo, "bytes", 20, g)))
