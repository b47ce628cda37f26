"""The benchmark method's numbers and rules, shared by the runner and pages.

The runner (``scripts/bench``) applies them and the pages
(``scripts/site/bench_pages.py``) state them, so both read this one module.
It imports neither torch nor Triton. Run and row statuses are not here: they
are defined once, in ``schemas/bench.schema.json``, and read with
``evidence.enum("bench", "row_status")``.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Any

from evidence import ResultFileError
from evidence.text import first_string_problem
from kernels.profiles import PROFILES

# The method (docs/reference/benchmarks.md states these through method_value).
METHOD = {
    "warmup_ms": 100.0,  # at least this much warm-up per provider
    "min_rounds": 3,  # interleaved rounds, each provider once per round
    "flush_l2_multiple": 4,  # the L2 flush reads this many times L2
    "launch_bound_us": 10.0,  # best median below this: launch-bound
    "l2_affected_multiple": 2,  # working set below this many L2s: L2-affected
    "hbm_bound_multiple": 4,  # working set at least this many L2s ...
    "hbm_bound_min_us": 50.0,  # ... and best median at least this: HBM-bound
    # A time below bytes / (best stream bandwidth x slack) is impossible.
    "plausibility_slack": 1.05,
    # Speedups past (what the byte counts allow) x margin are suspect.
    "suspect_margin": 1.2,
    # A device kernels/devices.py has no figures for is bounded by this many
    # times the fastest datasheet on record: room for a newer part, none for
    # a petabyte per second.
    "unknown_device_headroom": 2.0,
    # A run may start at most this many minutes ahead of the reading clock.
    "clock_skew_minutes": 10.0,
}
LAUNCH_BOUND_MS = METHOD["launch_bound_us"] / 1e3

#: profile -> device kind -> (rounds, timed calls per round). The "compare"
#: profile is the qualification project's comparison, which times more calls
#: per round on a GPU, where each call is short.
PROFILE_ROUNDS: dict[str, dict[str, tuple[int, int]]] = {
    "tiny": {"cpu": (3, 5), "cuda": (3, 5)},
    "quick": {"cpu": (3, 10), "cuda": (3, 10)},
    "full": {"cpu": (5, 10), "cuda": (5, 10)},
    "compare": {"cpu": (5, 10), "cuda": (5, 20)},
}

LABEL_LAUNCH = "launch-bound"
LABEL_L2 = "L2-affected"
LABEL_HBM = "HBM-bound"
LABEL_FLOP = "FLOP-bound"
LABEL_NONE = "unclassified"
LABEL_UNALIGNED = "unaligned"  # a length not a multiple of 16 bytes
LABEL_CPU = "CPU host timing"


def rounds_for(profile: str, device_kind: str) -> tuple[int, int]:
    """(rounds, timed calls per round) of one profile on "cpu" or "cuda"."""
    if profile not in PROFILE_ROUNDS:
        raise KeyError(f"no profile {profile!r}; known: {', '.join(PROFILES)}")
    return PROFILE_ROUNDS[profile][device_kind]


def classify(
    metric: str,
    best_median_ms: float | None,
    working_set_bytes: int,
    l2_bytes: int | None,
    on_gpu: bool = True,
    *,
    intensity: float | None = None,
    ridge: float | None = None,
    aligned: bool = True,
) -> list[str]:
    """Labels for one shape, from its best median and its working set.

    A FLOP-metric kernel (matmul, attention) given its arithmetic intensity
    and the run's ridge point (matmul ceiling / copy ceiling) is judged by
    those: above the ridge and long enough, it is FLOP-bound whether or not
    its operands fit in L2, since its time goes to arithmetic either way.
    ``aligned=False`` (a length that is not a multiple of 16 bytes, so no
    128-bit accesses) adds a label that keeps the shape out of goal verdicts.
    """
    if not on_gpu:
        return [LABEL_CPU]
    if best_median_ms is None or not l2_bytes:
        return [LABEL_NONE]
    labels = []
    if best_median_ms < LAUNCH_BOUND_MS:
        labels.append(LABEL_LAUNCH)
    long_enough = best_median_ms >= METHOD["hbm_bound_min_us"] / 1e3
    if metric == "flops" and intensity and ridge and intensity >= ridge:
        if long_enough:
            labels.append(LABEL_FLOP)
    elif working_set_bytes < METHOD["l2_affected_multiple"] * l2_bytes:
        labels.append(LABEL_L2)
    elif working_set_bytes >= METHOD["hbm_bound_multiple"] * l2_bytes and long_enough:
        # Without an intensity (older callers), a FLOP-metric kernel out of
        # L2 and long enough is taken to be limited by arithmetic.
        labels.append(
            LABEL_HBM if metric == "bandwidth" or intensity is not None else LABEL_FLOP
        )
    if not aligned:
        labels.append(LABEL_UNALIGNED)
    return labels or [LABEL_NONE]


def plausibility_flags(
    bytes_moved: int, median_ms: float, best_stream_bytes_per_s: float
) -> list[str]:
    """An "impossible" flag when the time is below what moving the bytes at
    the best bandwidth any probe of the run reached takes (with a small
    slack): the copy's for most kernels, the read-only stream's when that is
    faster, so a fast correct reduction is never hidden."""
    if not bytes_moved or not best_stream_bytes_per_s:
        return []
    floor_ms = (
        bytes_moved / (best_stream_bytes_per_s * METHOD["plausibility_slack"]) * 1e3
    )
    if median_ms < floor_ms:
        return [
            f"impossible: median {median_ms:.4g} ms is below {floor_ms:.4g} ms, "
            "the time to move the model's bytes at the fastest measured stream"
        ]
    return []


def parse_utc(text: str) -> datetime | None:
    """An ISO 8601 time with a UTC offset ("2026-11-29T15:10:19+00:00" or
    "...Z"), or None when it does not parse or is not UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    if moment.utcoffset() != timedelta(0):
        return None  # naive, or another zone
    return moment


def _refuse(shown: str, field: str, why: str) -> ResultFileError:
    return ResultFileError(f"{shown}: field '{field}': {why}")


def _check_times(identity: dict[str, Any], shown: str, now: datetime) -> None:
    """Both times parse as UTC, the run did not start in the future (a start
    in 2099 would stay "newest" for decades) and did not finish before it
    started."""
    started = parse_utc(identity["started_utc"])
    if started is None:
        raise _refuse(
            shown,
            "identity.started_utc",
            f"{identity['started_utc'][:40]!r} is not an ISO 8601 UTC time",
        )
    if started > now + timedelta(minutes=METHOD["clock_skew_minutes"]):
        raise _refuse(
            shown,
            "identity.started_utc",
            f"{started:%Y-%m-%d %H:%M} UTC is in the future; a result records "
            "when it ran",
        )
    finished_text = identity.get("finished_utc")
    if finished_text is None:
        return
    finished = parse_utc(finished_text)
    if finished is None:
        raise _refuse(
            shown,
            "identity.finished_utc",
            f"{finished_text[:40]!r} is not an ISO 8601 UTC time",
        )
    if finished < started:
        raise _refuse(
            shown,
            "identity.finished_utc",
            "the run finishes before it starts",
        )


def _bounds(name: str):
    """(figures or None, HBM bytes/s bound, dense bf16 FLOP/s bound, what the
    bound is called) for a device name."""
    from kernels.devices import KNOWN, figures_for

    figures = figures_for(name)
    if figures is not None:
        return (
            figures,
            figures.hbm_bytes_per_s,
            figures.bf16_dense_flop_per_s,
            f"{figures.name} datasheet's",
        )
    headroom = METHOD["unknown_device_headroom"]
    hbm = headroom * max(f.hbm_bytes_per_s for f in KNOWN.values())
    peak = headroom * max(f.bf16_dense_flop_per_s for f in KNOWN.values())
    return (
        None,
        hbm,
        peak,
        f"unknown device's bound ({headroom:g}× the fastest datasheet on record, "
        "kernels/devices.py)",
    )


def _check_datasheet(data: dict[str, Any], shown: str) -> None:
    """On a GPU nothing may beat the datasheet (a device kernels/devices.py
    knows) or twice the fastest datasheet on record (one it does not): not a
    row marked ok, not the measured ceilings."""
    if data["identity"]["device_kind"] != "cuda":
        return
    _, hbm, peak, device = _bounds(data["device"]["name"])
    ceilings = data.get("ceilings") or {}
    for stream in ("copy", "read"):
        probe = ceilings.get(stream) or {}
        for key in ("bandwidth_bytes_per_s", "best_bandwidth_bytes_per_s"):
            if probe.get(key, 0) > hbm:
                raise _refuse(
                    shown,
                    f"ceilings.{stream}.{key}",
                    f"impossible: {probe[key] / 1e12:.3g} TB/s is above the "
                    f"{device} {hbm / 1e12:.3g} TB/s",
                )
    matmul = ceilings.get("matmul") or {}
    for key in ("flop_rate_per_s", "best_flop_rate_per_s"):
        if matmul.get(key, 0) > peak:
            raise _refuse(
                shown,
                f"ceilings.matmul.{key}",
                f"impossible: {matmul[key] / 1e12:.4g} TFLOP/s is above the "
                f"{device} dense bf16 {peak / 1e12:.4g} TFLOP/s",
            )
    for i, row in enumerate(data["rows"]):
        if not row.get("timed") or row["status"] != "ok":
            continue  # implausible rows are kept, flagged, and never shown
        seconds = row["median_ms"] * 1e-3
        if row["bytes_moved"] / seconds > hbm:
            raise _refuse(
                shown,
                f"rows[{i}].median_ms",
                f"impossible: {row['bytes_moved']} bytes in {row['median_ms']:.4g} "
                f"ms is {row['bytes_moved'] / seconds / 1e12:.3g} TB/s, above the "
                f"{device} {hbm / 1e12:.3g} TB/s",
            )
        if row["flops"] / seconds > peak:
            raise _refuse(
                shown,
                f"rows[{i}].median_ms",
                f"impossible: {row['flops']} FLOPs in {row['median_ms']:.4g} ms "
                f"is {row['flops'] / seconds / 1e12:.4g} TFLOP/s, above the "
                f"{device} dense bf16 {peak / 1e12:.4g} TFLOP/s",
            )


def _check_probes(data: dict[str, Any], shown: str) -> None:
    """The runner's own plausibility check, repeated on load: on a GPU no
    row marked ok is faster than moving its bytes at the fastest stream the
    same run measured (a file edited after the run is caught here)."""
    if data["identity"]["device_kind"] != "cuda":
        return
    ceilings = data.get("ceilings") or {}
    fastest = max(
        (
            (ceilings.get(k) or {}).get("best_bandwidth_bytes_per_s", 0.0)
            for k in ("copy", "read")
        ),
        default=0.0,
    )
    for i, row in enumerate(data["rows"]):
        if not row.get("timed") or row["status"] != "ok":
            continue
        if not fastest:
            raise _refuse(
                shown,
                "ceilings.copy",
                "a GPU run with timed rows needs the copy probe it is checked by",
            )
        flags = plausibility_flags(row["bytes_moved"], row["median_ms"], fastest)
        if flags:
            raise _refuse(
                shown,
                f"rows[{i}].median_ms",
                f"{flags[0]} (this run's own probe) but the row is marked ok",
            )


#: What each device kind's timer and rows say: a CPU run with its kind
#: changed to cuda still carries host timers, interpreter rows and CPU labels.
_TIMERS = {"cuda": "cuda-event", "cpu": "host-perf-counter"}


def _check_kind(data: dict[str, Any], shown: str) -> None:
    """``device.kind``, every row's kind and timer, and the settings agree
    with ``identity.device_kind``."""
    kind = data["identity"]["device_kind"]
    device_kind = data["device"].get("kind")
    if device_kind is not None and device_kind != kind:
        raise _refuse(
            shown,
            "device.kind",
            f"{device_kind!r} but identity.device_kind is {kind!r}",
        )
    settings = data.get("settings") or {}
    timer = settings.get("timer")
    if timer is not None and timer != _TIMERS[kind]:
        raise _refuse(
            shown, "settings.timer", f"{timer!r} is not the timer of a {kind} run"
        )
    if kind == "cuda" and settings.get("triton_interpret"):
        raise _refuse(
            shown,
            "settings.triton_interpret",
            "a GPU run does not use Triton's interpreter",
        )
    for i, row in enumerate(data["rows"]):
        if row.get("device_kind", kind) != kind:
            raise _refuse(
                shown,
                f"rows[{i}].device_kind",
                f"{row['device_kind']!r} in a {kind} run",
            )
        if row.get("timed") and row.get("timer", _TIMERS[kind]) != _TIMERS[kind]:
            raise _refuse(
                shown,
                f"rows[{i}].timer",
                f"{row['timer']!r} is not the timer of a {kind} run",
            )
        if kind == "cuda" and (
            row["status"] == "interpreter-correctness-only"
            or LABEL_CPU in row["labels"]
        ):
            raise _refuse(
                shown, f"rows[{i}].status", "a CPU interpreter row in a GPU run"
            )


#: How far a reported memory or L2 size may be from the datasheet's (the
#: driver reports usable bytes, in binary or decimal units; an L2 may be
#: reported per partition or whole).
_SIZE_TOLERANCE = {"memory_bytes": (0.85, 1.2), "l2_bytes": (0.5, 2.0)}


def _check_device(data: dict[str, Any], shown: str) -> None:
    """A known device's SM count, memory and L2 agree with its datasheet; an
    unknown name that does not mention a known device yet carries its SM
    count and memory is refused (a "B200" with an H200's SMs and memory; an
    "H200 NVL" is a variant, not an impostor); a uuid looks like one."""
    from kernels.devices import KNOWN

    if data["identity"]["device_kind"] != "cuda":
        return
    device = data["device"]
    figures, *_ = _bounds(device["name"])
    uuid = device.get("uuid")
    if uuid is not None and not _UUID.match(str(uuid)):
        raise _refuse(shown, "device.uuid", "not a GPU uuid (hex digits and hyphens)")
    if figures is None:
        for key, known in KNOWN.items():
            if key in device["name"]:
                continue  # a variant ("NVIDIA H200 NVL", "GH200"): its own part
            same_sms = device.get("sm_count") == known.sm_count
            memory = device.get("memory_bytes")
            if same_sms and _near(memory, known.memory_bytes, "memory_bytes"):
                raise _refuse(
                    shown,
                    "device.name",
                    f"{device['name'][:40]!r} has no figures in kernels/devices.py "
                    f"but carries an {known.name}'s SM count and memory; a "
                    "result names its device as the driver does",
                )
        return
    expected_values = {
        "sm_count": figures.sm_count,
        "memory_bytes": figures.memory_bytes,
        "l2_bytes": figures.l2_bytes,
    }
    for key, expected in expected_values.items():
        value = device.get(key)
        if value is None:
            continue
        agrees = value == expected if key == "sm_count" else _near(value, expected, key)
        if not agrees:
            raise _refuse(
                shown,
                f"device.{key}",
                f"{value} does not match the {figures.name} datasheet's {expected}",
            )


def _near(value, expected: int, key: str) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    low, high = _SIZE_TOLERANCE[key]
    return low * expected <= value <= high * expected


# torch writes the bare uuid, nvidia-smi prefixes GPU- (or MIG-): letters,
# digits and hyphens, whatever the exact layout (a run must never fail on it).
_UUID = re.compile(r"^[A-Za-z0-9-]{8,64}$")


def check_consistency(
    data: dict[str, Any],
    shown: str,
    known_kernels: Collection[str] | None = None,
    now: datetime | None = None,
) -> None:
    """The checks on a bench file that JSON Schema cannot express, shared by
    the writer, the build, contribute and every page reader: every string is
    printable (``evidence.text``); every row's kernel is listed in
    ``kernels`` (and, given ``known_kernels``, is one the project has);
    p20 <= median <= p80; the times parse as UTC, the start is not in the
    future (``now``, default the clock) and the finish not before it; the
    device kind, timers and rows agree; a known device's SM count, memory and
    L2 match its datasheet; nothing beats the datasheet (or, for an unknown
    device, twice the fastest one on record); and no row marked ok beats the
    run's own fastest stream probe. Raises ResultFileError naming the file
    and the field (after schema validation)."""
    found = first_string_problem(data)
    if found is not None:
        raise _refuse(shown, *found)
    kernels = data["kernels"]
    if known_kernels is not None:
        for name in kernels:
            if name not in known_kernels:
                raise _refuse(
                    shown,
                    f"kernels.{name}",
                    "not a kernel of this project (results/kernels.json)",
                )
    for i, row in enumerate(data["rows"]):
        where = f"rows[{i}]"
        if row["kernel"] not in kernels:
            raise ResultFileError(
                f"{shown}: field '{where}.kernel' names {row['kernel']!r}, "
                "which 'kernels' does not list"
            )
        if row.get("timed") and not (
            row["p20_ms"] <= row["median_ms"] <= row["p80_ms"]
        ):
            raise ResultFileError(
                f"{shown}: fields '{where}.p20_ms' <= 'median_ms' <= 'p80_ms' "
                "do not hold"
            )
    if "identity" in data:
        _check_times(data["identity"], shown, now or datetime.now(UTC))
        _check_kind(data, shown)
        _check_device(data, shown)
        _check_datasheet(data, shown)
        _check_probes(data, shown)
