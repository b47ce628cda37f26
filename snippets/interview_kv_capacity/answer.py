"""Interview exercise: KV cache, batch and replicas for a decode service
(docs/interview/kv-cache-and-capacity.md). The step model is the lesson
"Batching"'s bandwidth bound (snippets/lib/batching.py): each decode step
reads the weights once and every sequence's KV cache once; Little's law
(the lesson "Capacity planning"'s, snippets/lib/littles_law.py) turns an
arrival rate into sequences in flight."""

from kernels.devices import H200
from snippets.lib.batching import MODEL, kv_bytes_per_token
from snippets.lib.littles_law import (
    in_flight_when_time_grows,
    replicas_for,
    sustained_rate,
)

TOKENS_PER_SEQUENCE = 2000  # the most a sequence holds: prompt plus output
OUTPUT_TOKENS = 500  # decode steps per request
RATE = 20.0  # requests per second
DOUBLED_RATE = 40.0


# --8<-- [start:model]
def kv_per_sequence() -> int:
    per_token = kv_bytes_per_token(
        MODEL["layers"], MODEL["kv_heads"], MODEL["head_dim"], MODEL["bytes_per_param"]
    )
    return per_token * TOKENS_PER_SEQUENCE


def weights_bytes() -> float:
    return MODEL["params"] * MODEL["bytes_per_param"]


def step_s(batch: float) -> float:
    """The bandwidth bound of one decode step (every sequence at its longest)."""
    return (weights_bytes() + batch * kv_per_sequence()) / H200.hbm_bytes_per_s


def max_batch() -> int:
    """Sequences whose KV cache fits beside the weights in one H200."""
    return int((H200.memory_bytes - weights_bytes()) // kv_per_sequence())


def in_flight(rate: float) -> float | None:
    """Sequences in flight on one replica: each stays OUTPUT_TOKENS steps, and
    a step's time grows with the sequences in the batch. None when no batch
    keeps up (the queue grows without bound) or the batch would not fit."""
    L = in_flight_when_time_grows(
        rate,
        fixed_s=OUTPUT_TOKENS * weights_bytes() / H200.hbm_bytes_per_s,
        per_request_s=OUTPUT_TOKENS * kv_per_sequence() / H200.hbm_bytes_per_s,
    )
    return L if L is not None and L <= max_batch() else None


def max_rate() -> float:
    """The arrival rate one replica sustains at its largest batch."""
    return sustained_rate(max_batch(), OUTPUT_TOKENS * step_s(max_batch()))


def replicas(rate: float) -> int:
    """Replicas for `rate`: each sustains max_rate() at its largest batch."""
    return replicas_for(rate, max_rate())


# --8<-- [end:model]


def facts() -> dict[str, str]:
    L = in_flight(RATE)
    return {
        "given.tokens": f"{TOKENS_PER_SEQUENCE:,}",
        "given.output": str(OUTPUT_TOKENS),
        "given.rate": f"{RATE:g} requests/s",
        "given.doubled": f"{DOUBLED_RATE:g} requests/s",
        "given.params": f"{MODEL['params'] / 1e9:.0f}-billion-parameter",
        "given.layers": str(MODEL["layers"]),
        "given.kv_heads": str(MODEL["kv_heads"]),
        "given.head_dim": str(MODEL["head_dim"]),
        "given.weights": f"{weights_bytes() / 1e9:.0f} GB",
        "answer.kv_token": f"{kv_per_sequence() // TOKENS_PER_SEQUENCE // 1024} KiB",
        "answer.kv_sequence": f"{kv_per_sequence() / 1e6:.0f} MB",
        "answer.max_batch": str(max_batch()),
        "answer.step_1": f"{step_s(1) * 1e3:.2f} ms",
        "answer.step_max": f"{step_s(max_batch()) * 1e3:.1f} ms",
        "answer.in_flight": f"{L:.0f}",
        "answer.step_now": f"{step_s(L) * 1e3:.2f} ms",
        "answer.kv_now": f"{L * kv_per_sequence() / 1e9:.1f} GB",
        "answer.max_rate": f"{max_rate():.1f} requests/s",
        "answer.doubled_keeps_up": "no" if in_flight(DOUBLED_RATE) is None else "yes",
        "answer.replicas_doubled": str(replicas(DOUBLED_RATE)),
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>17}: {value}")
