"""What one shape's measured rows mean: achieved rates, fractions of the
run's own ceilings, plausibility against the fastest probe and the
datasheet, suspicious speedups, then the labels (used by
``scripts/bench/runner.py``)."""

from __future__ import annotations

from evidence import enum
from evidence.method import METHOD, classify, plausibility_flags
from kernels.descriptor import STREAMS, Descriptor

# The row statuses, defined once in the schema (in this order there).
STATUS_OK, _, _, _, STATUS_IMPLAUSIBLE = enum("bench", "row_status")


def finish_rows(desc: Descriptor, rows, device, ceilings, l2_bytes):
    """Achieved rates, fractions of ceiling, plausibility, then labels."""
    medians = {
        r["provider"]: r["median_ms"]
        for r in rows
        if r.get("timed") and r["status"] == STATUS_OK
    }
    for row in rows:
        row.setdefault("flags", [])
        if not row.get("timed"):
            continue
        seconds = row["median_ms"] * 1e-3
        if desc.metric == "bandwidth":
            row["achieved_per_s"] = row["bytes_moved"] / seconds
            probe = ceilings.get(desc.stream) or ceilings["copy"]
            ceiling = probe["bandwidth_bytes_per_s"]
        else:
            row["achieved_per_s"] = row["flops"] / seconds
            ceiling = ceilings["matmul"]["flop_rate_per_s"]
        if device == "cpu":
            # Host timings of cache-resident tiny shapes: no fraction, no bound.
            row["fraction_of_ceiling"] = None
            row["plausible"] = None
            continue
        row["fraction_of_ceiling"] = row["achieved_per_s"] / ceiling
        row["flags"] += plausibility_flags(
            row["bytes_moved"], row["median_ms"], fastest_stream(ceilings)
        )
        row["flags"] += datasheet_flags(row, ceilings.get("datasheet"))
        if row["provider_kind"] == "triton":
            row["flags"] += speedup_flags(desc, row["median_ms"], medians)
        row["plausible"] = not any(f.startswith("impossible") for f in row["flags"])
        if not row["plausible"]:
            row["status"] = STATUS_IMPLAUSIBLE
    # Labels from the best time that survived the checks above.
    valid = [
        r["median_ms"] for r in rows if r.get("timed") and r["status"] == STATUS_OK
    ]
    first = rows[0]
    ridge = None
    if ceilings and ceilings["copy"]["bandwidth_bytes_per_s"]:
        ridge = (
            ceilings["matmul"]["flop_rate_per_s"]
            / ceilings["copy"]["bandwidth_bytes_per_s"]
        )
    labels = classify(
        desc.metric,
        min(valid, default=None),
        first["working_set_bytes"],
        l2_bytes,
        device != "cpu",
        intensity=first["flops"] / first["bytes_moved"]
        if first["bytes_moved"]
        else None,
        ridge=ridge,
        aligned=desc.aligned(first["shape"], ITEMSIZES.get(first["dtype"], 1)),
    )
    for row in rows:
        row["labels"] = labels


ITEMSIZES = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8}


def datasheet_flags(row: dict, datasheet: dict | None) -> list[str]:
    """An "impossible" flag for a row faster than the device's datasheet: the
    row is then kept as implausible, so one impossible time never stops the
    run (the result model refuses a file that shows such a row as ok)."""
    if not datasheet:
        return []
    seconds = row["median_ms"] * 1e-3
    flags = []
    limits = (
        ("bytes_moved", "bandwidth_bytes_per_s", 1e12, "TB/s"),
        ("flops", "bf16_dense_flop_per_s", 1e12, "TFLOP/s"),
    )
    for amount, limit_key, scale, unit in limits:
        limit = datasheet.get(limit_key)
        if limit and row.get(amount) and row[amount] / seconds > limit:
            flags.append(
                f"impossible: {row[amount] / seconds / scale:.4g} {unit} is above "
                f"the datasheet's {limit / scale:.4g} {unit}"
            )
    return flags


def fastest_stream(ceilings) -> float:
    """The best bandwidth any probe reached: the bound no row may beat. A
    copy-like row is also bounded by the copy, but flagging against the
    fastest stream can never hide a correct row."""
    return max(
        (ceilings[k]["best_bandwidth_bytes_per_s"] for k in STREAMS if k in ceilings),
        default=0.0,
    )


def speedup_flags(desc: Descriptor, custom_ms, medians) -> list[str]:
    """Speedups over a baseline beyond what the byte counts allow."""
    flags = []
    for other, limit in desc.max_speedup.items():
        if other in medians and custom_ms > 0:
            speedup = medians[other] / custom_ms
            if speedup > limit * METHOD["suspect_margin"]:
                flags.append(
                    f"suspect: {speedup:.2f}x faster than {other}; "
                    f"the byte counts allow about {limit:.2f}x"
                )
    return flags
