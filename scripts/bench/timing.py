"""Interleaved timing of competing implementations (docs/reference/benchmarks.md).

The method is the one in the project's measurement notes:

* the first call of every provider is timed on its own (it compiles);
* each provider is then warmed up for at least ``warmup_ms``;
* timed calls run in rounds, every provider once per round, the order rotated
  from round to round, so clock and thermal drift hit all providers alike;
* on a GPU each timed call sits between two CUDA events with an L2 flush
  (a read over a buffer at least 4x the L2 size) just before it, and the
  device is synchronized before any event is read. A read, not a write: a
  write leaves L2 full of dirty lines whose write-back the next timed call
  would pay for; a read leaves clean lines, and evicting the previous call's
  dirty lines is charged to the flush itself;
* on a CPU a host ``perf_counter`` brackets each call. No cache flush is made
  unless asked for: CPU times are never evidence of device speed.

Every raw sample is kept, in the order taken; median, p20 and p80 summarise.
``time_first_call`` is the one first-call timer: the runner times each
provider's correctness call with it, since that call compiles.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch

from evidence.method import METHOD
from evidence.provenance import l2_cache_bytes

TIMER_CUDA = "cuda-event"
TIMER_HOST = "host-perf-counter"

# A flush must evict everything a previous call left in L2.
FLUSH_L2_MULTIPLE = METHOD["flush_l2_multiple"]


@dataclass
class Timing:
    """Everything measured for one provider."""

    provider: str
    timer: str  # TIMER_CUDA or TIMER_HOST
    first_call_ms: float
    samples_ms: list[float]  # every raw sample, in the order taken
    median_ms: float
    p20_ms: float
    p80_ms: float
    warmup_ms: float  # wall time actually spent warming up
    repeats: int  # timed calls per round
    rounds: int
    flush_bytes: int
    warmup_calls: int = 0
    round_order: list[list[str]] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def quantile(samples: list[float], q: float) -> float:
    """The q-quantile with linear interpolation between order statistics
    (NumPy's default), so results do not depend on NumPy's version."""
    if not samples:
        raise ValueError("quantile: samples is empty")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile: q must lie in [0, 1], got {q}")
    ordered = sorted(samples)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    weight = position - low
    return ordered[low] + (ordered[high] - ordered[low]) * weight


def is_cuda(device: str) -> bool:
    return device == "cuda" or device.startswith("cuda:")


def check_device(device: str) -> None:
    if not isinstance(device, str) or not (device == "cpu" or is_cuda(device)):
        raise ValueError(f"device must be 'cpu' or 'cuda[:N]', got {device!r}")


def default_flush_bytes(device: str) -> int:
    """4x L2 on a GPU; 0 on a CPU (host timings are not speed evidence)."""
    check_device(device)
    if is_cuda(device):
        return FLUSH_L2_MULTIPLE * l2_cache_bytes(device)
    return 0


def _synchronize(device: str) -> None:
    if is_cuda(device):
        torch.cuda.synchronize(torch.device(device))


def time_first_call(fn: Callable[[], object], device: str) -> tuple[object, float]:
    """Call fn once and return (its result, wall ms), timed on the host
    between two device syncs: a first call compiles (Triton JIT, autotune,
    torch.compile), which is host work that device events would not see."""
    _synchronize(device)
    start = time.perf_counter()
    out = fn()
    _synchronize(device)
    return out, (time.perf_counter() - start) * 1e3


def device_kernels(fn: Callable[[], object], device: str) -> list[str]:
    """The device kernels one call launches, by name, in first-seen order.

    For a library op this is which backend really ran (SDPA may pick flash,
    memory-efficient, cuDNN or math attention at run time). Empty on a CPU;
    a profiler failure is recorded as such rather than guessed."""
    if not is_cuda(device):
        return []
    try:
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            _synchronize(device)
        names = [
            event.name
            for event in prof.events()
            if getattr(event, "device_type", None) == DeviceType.CUDA
        ]
    except Exception as exc:  # the record says so; the timing goes on
        return [f"unrecorded: {type(exc).__name__}: {exc}"[:300]]
    return [name[:300] for name in dict.fromkeys(names)][:32]


def _warm_up(fn: Callable[[], object], device: str, warmup_ms: float):
    """Call fn until at least warmup_ms of wall time has passed (at least
    once). Returns (elapsed ms, calls)."""
    calls = 0
    start = time.perf_counter()
    while True:
        fn()
        _synchronize(device)
        calls += 1
        elapsed_ms = (time.perf_counter() - start) * 1e3
        if elapsed_ms >= warmup_ms:
            return elapsed_ms, calls


def _check_arguments(providers, device, rounds, repeats_per_round, warmup_ms):
    check_device(device)
    if not providers:
        raise ValueError("providers is empty: nothing to time")
    for name, fn in providers.items():
        if not callable(fn):
            raise TypeError(f"provider {name!r} is not callable")
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    if repeats_per_round < 1:
        raise ValueError(f"repeats_per_round must be >= 1, got {repeats_per_round}")
    if warmup_ms < 0:
        raise ValueError(f"warmup_ms must be >= 0, got {warmup_ms}")


def time_interleaved(
    providers: dict[str, Callable[[], object]],
    *,
    device: str,
    rounds: int = 3,
    repeats_per_round: int = 10,
    warmup_ms: float = 100.0,
    flush_bytes: int | None = None,
) -> dict[str, Timing]:
    """Time each zero-argument callable in `providers`, interleaved in rounds.

    Returns one Timing per provider, keyed like `providers`.
    """
    _check_arguments(providers, device, rounds, repeats_per_round, warmup_ms)
    if flush_bytes is None:
        flush_bytes = default_flush_bytes(device)
    if flush_bytes < 0:
        raise ValueError(f"flush_bytes must be >= 0, got {flush_bytes}")
    cuda = is_cuda(device)
    names = list(providers)

    flush_buffer = None
    if flush_bytes:
        # int32 words: a max over them is a pure read at full bandwidth.
        flush_buffer = torch.ones(
            max(1, flush_bytes // 4), dtype=torch.int32, device=device
        )

    def flush() -> None:
        if flush_buffer is not None:
            torch.amax(flush_buffer)  # a read over >= 4x L2 evicts every line

    # First calls, each on its own, timed on the host: they include
    # compilation, which is host work that device events would not see.
    first_call_ms = {
        name: time_first_call(providers[name], device)[1] for name in names
    }

    warmup = {name: _warm_up(providers[name], device, warmup_ms) for name in names}

    samples: dict[str, list[float]] = {name: [] for name in names}
    orders: list[list[str]] = []
    for round_index in range(rounds):
        shift = round_index % len(names)
        order = names[shift:] + names[:shift]
        orders.append(order)
        for name in order:
            fn = providers[name]
            if cuda:
                pairs = []
                for _ in range(repeats_per_round):
                    flush()
                    begin = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    begin.record()
                    fn()
                    end.record()
                    pairs.append((begin, end))
                _synchronize(device)
                samples[name].extend(b.elapsed_time(e) for b, e in pairs)
            else:
                for _ in range(repeats_per_round):
                    flush()
                    start = time.perf_counter()
                    fn()
                    samples[name].append((time.perf_counter() - start) * 1e3)

    timer = TIMER_CUDA if cuda else TIMER_HOST
    return {
        name: Timing(
            provider=name,
            timer=timer,
            first_call_ms=first_call_ms[name],
            samples_ms=samples[name],
            median_ms=quantile(samples[name], 0.5),
            p20_ms=quantile(samples[name], 0.2),
            p80_ms=quantile(samples[name], 0.8),
            warmup_ms=warmup[name][0],
            repeats=repeats_per_round,
            rounds=rounds,
            flush_bytes=flush_bytes,
            warmup_calls=warmup[name][1],
            round_order=orders,
        )
        for name in names
    }
