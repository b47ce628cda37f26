"""Little's law: requests in flight = arrival rate x time in the system
(lesson: Capacity planning, docs/inference/capacity-planning.md; the
interview exercise "KV cache and capacity" uses it too).

It holds for any stable system in steady state, whatever the arrival
pattern; it says nothing about tails, so a p99 objective still needs the
simulator or a measurement. Standard library only (the capacity calculator
imports it in the reader's browser).
"""

import math


# --8<-- [start:law]
def in_flight(rate: float, seconds: float) -> float:
    """Requests in the system at `rate` per second, each staying `seconds`."""
    return rate * seconds


def sustained_rate(requests: float, seconds: float) -> float:
    """The arrival rate that keeps `requests` in flight at `seconds` each."""
    return requests / seconds


def in_flight_when_time_grows(
    rate: float, fixed_s: float, per_request_s: float
) -> float | None:
    """Little's law when each request's time grows with the requests beside
    it, seconds = fixed_s + per_request_s * L (a batch that reads every
    sequence's KV cache each step): L = rate * (fixed_s + per_request_s * L),
    solved for L. None when no L satisfies it: the queue grows without bound."""
    load = rate * per_request_s
    if load >= 1:
        return None
    return rate * fixed_s / (1 - load)


def replicas_for(requests: float, per_replica: float, headroom: float = 1.0) -> int:
    """Replicas that hold `requests` in flight, each filled to `headroom` of
    the `per_replica` it can hold."""
    return math.ceil(requests / (per_replica * headroom))


# --8<-- [end:law]
