"""The capacity calculator (docs/inference/capacity-planning.md).

Standard library only: the page turns `replicas_needed` into a form that
runs in the reader's browser. Little's law itself is the shared lesson
library's, snippets/lib/littles_law.py.
"""

from snippets.lib.littles_law import in_flight, replicas_for


# --8<-- [start:calculator]
def replicas_needed(
    requests_per_s: float,
    ttft_ms: float,
    tpot_ms: float,
    output_tokens: int,
    max_batch: int,
    kv_sequences: int,
    headroom: float = 0.8,
) -> str:
    """Little's law: requests in flight = arrival rate x time in the system.
    Each replica holds at most min(max_batch, kv_sequences) of them (the
    batch limit, or as many sequences as its KV memory holds at this reply
    length, whichever binds first), run at `headroom` of that so queues stay
    short. The latencies are those measured at that concurrency: a different
    answer means a different batch, so measure again there."""
    for name, value in (
        ("requests_per_s", requests_per_s),
        ("ttft_ms", ttft_ms),
        ("tpot_ms", tpot_ms),
    ):
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value}")
    if output_tokens < 1:
        raise ValueError(f"output_tokens must be at least 1, got {output_tokens}")
    if max_batch < 1:
        raise ValueError(f"max_batch must be at least 1, got {max_batch}")
    if kv_sequences < 1:
        raise ValueError(f"kv_sequences must be at least 1, got {kv_sequences}")
    if not 0 < headroom <= 1:
        raise ValueError(f"headroom must be in (0, 1], got {headroom}")
    seconds = (ttft_ms + (output_tokens - 1) * tpot_ms) / 1e3
    requests = in_flight(requests_per_s, seconds)
    per_replica = min(max_batch, kv_sequences)
    limit = "batch limit" if max_batch <= kv_sequences else "KV memory"
    replicas = replicas_for(requests, per_replica, headroom)
    return (
        f"{requests:.1f} requests in flight ({seconds:.2f} s each), "
        f"{per_replica} per replica ({limit}): "
        f"{replicas} replica{'s' if replicas != 1 else ''}"
    )


# --8<-- [end:calculator]


if __name__ == "__main__":
    print(replicas_needed(20.0, 300.0, 30.0, 400, 64, 40))
