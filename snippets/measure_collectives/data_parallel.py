"""One data-parallel training step of the tiny language model.

Taught in docs/foundations/beyond-one-gpu/measure-collectives.md; run across
processes by ``python -m scripts.collectives --data-parallel``, which calls
``data_parallel_step`` in every rank of a started process group.

Each rank builds the same model from the same seed, computes the loss on
its own slice of the batch, and the ranks average their gradients with one
all-reduce before the same Adam update. Equal slices make the mean of the
slice losses the full batch's mean loss, so the averaged gradient is the
single-process gradient up to the order of floating-point additions.
"""

from __future__ import annotations

import threading
import time

import torch

from snippets.lib.tiny_lm.model import Adam, TinyLM, encode, get_batch, next_token_loss

TEXT = (
    "Bytes on the wire per step, the link they cross, and the compute that hides them. "
)
SEED = 2026
BATCH = 8
CONTEXT = 16
LR = 1e-2
#: Largest weight difference accepted between the data-parallel and the
#: single-process step (fp32; Adam's first step moves a weight by about lr).
TOLERANCE = 1e-5


# Seeding and drawing the initial weights use torch's global generator;
# ranks run as threads (in the tests) must not interleave the two.
_GLOBAL_RNG = threading.Lock()


def model_and_batch(seed: int = SEED, batch: int = BATCH):
    """The same model and the same batch in every process."""
    with _GLOBAL_RNG:
        torch.manual_seed(seed)
        model = TinyLM(context=CONTEXT, width=32, heads=2, layers=1)
    ids = torch.tensor(encode(TEXT * 4))
    generator = torch.Generator().manual_seed(seed)
    inputs, targets = get_batch(ids, batch, CONTEXT, generator)
    return model, inputs, targets


def flat_weights(model) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def single_process_step(seed: int = SEED, batch: int = BATCH) -> torch.Tensor:
    """The reference: the whole batch, one process, one Adam step."""
    model, inputs, targets = model_and_batch(seed, batch)
    optimizer = Adam(model.parameters(), lr=LR)
    next_token_loss(model, inputs, targets).backward()
    optimizer.step()
    return flat_weights(model)


# --8<-- [start:step]
def data_parallel_step(rank, world, all_reduce, seed=SEED, batch=BATCH):
    """One step on this rank's slice of the batch; `all_reduce` sums a
    tensor in place across the ranks (torch.distributed.all_reduce in the
    tool). Returns the weights after the update, the seconds spent in the
    all-reduce and the bytes it carried."""
    if batch % world:
        raise ValueError(f"batch {batch} must divide evenly over {world} ranks")
    model, inputs, targets = model_and_batch(seed, batch)
    optimizer = Adam(model.parameters(), lr=LR)
    rows = slice(rank * batch // world, (rank + 1) * batch // world)
    next_token_loss(model, inputs[rows], targets[rows]).backward()

    # One bucket: every gradient packed into one buffer, one all-reduce.
    grads = [p.grad for p in model.parameters()]
    bucket = torch.cat([g.flatten() for g in grads])
    started = time.perf_counter()
    all_reduce(bucket)  # sum over ranks ...
    comm_seconds = time.perf_counter() - started
    bucket /= world  # ... then the mean, as the full batch would give
    sizes = [g.numel() for g in grads]
    for g, piece in zip(grads, bucket.split(sizes), strict=True):
        g.copy_(piece.view_as(g))

    optimizer.step()
    return flat_weights(model), comm_seconds, bucket.numel() * bucket.element_size()


# --8<-- [end:step]
