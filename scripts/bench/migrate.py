"""Convert old result files into schema-2 bench files (kept for the record).

Two kinds of old file exist:

* schema-1 bench files (``results/bench/*.json``): the same content, plus
  ``identity.migrated_from``. Schema 1 recorded a Triton row's configuration
  (``triton_config``), not what launched; it is kept as
  ``schema1_triton_config`` and ``launches`` is null ("not recorded").
* the qualification comparison (``results/qualify/comparison.<device>.json``):
  becomes a bench file of profile "compare", the same commit, date, software,
  device and every timing sample, one row per provider and shape.

Usage::

    python -m scripts.bench.migrate FILE ...   # writes into results/bench/

A schema-1 bench file is rewritten in place under its own name; a comparison
gets a new name (``<UTC stamp>-<device>-compare-<commit>.json``). Nothing is
deleted. Each output is validated before it is written.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from evidence import ROOT, ResultFileError, display_path, sha256_bytes, write
from evidence.method import LABEL_CPU, LABEL_NONE, check_consistency
from scripts.cli import OneLineParser

PROG = "python -m scripts.bench.migrate"

OUT = ROOT / "results" / "bench"
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
COMPARE_KERNEL = "residual_add_relu"
COMPARE_SOURCE = "kernels/residual_add_relu.py"


def _origin(name: str, raw: bytes, notes: list[str]) -> dict[str, Any]:
    return {"file": name, "sha256": sha256_bytes(raw), "notes": notes}


def migrate_bench(old: dict[str, Any], name: str, raw: bytes) -> dict[str, Any]:
    """A schema-1 bench file as schema 2."""
    if old.get("schema_version") != 1:
        raise ValueError(f"{name}: not a schema-1 bench file")
    data = copy.deepcopy(old)
    data["schema_version"] = 2
    data["identity"]["migrated_from"] = _origin(
        name,
        raw,
        [
            "schema 1 recorded each Triton row's configuration, not the "
            "launches: launches is null, the old triton_config is kept as "
            "schema1_triton_config"
        ],
    )
    for row in data["rows"]:
        if row.get("provider_kind") == "triton":
            config = row.pop("triton_config", None)
            row["launches"] = None
            if config is not None:
                row["schema1_triton_config"] = config
    return data


def _utc(text: str) -> str:
    """'2026-11-29T15:34:54Z' -> '2026-11-29T15:34:54+00:00' (as runs write)."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).isoformat()


def _timed_row(base: dict, provider: str, kind: str, timing: dict, first_ms: float):
    row = {**base, "provider": provider, "provider_kind": kind, "timed": True}
    row.update(
        timer=timing["timer"],
        first_call_ms=first_ms,
        samples_ms=timing["samples_ms"],
        median_ms=timing["median_ms"],
        p20_ms=timing["p20_ms"],
        p80_ms=timing["p80_ms"],
        warmup_ms=timing["warmup_ms"],
        warmup_calls=timing.get("warmup_calls", 0),
        repeats=timing["repeats"],
        rounds=timing["rounds"],
        flush_bytes=timing["flush_bytes"],
        status="ok",
        achieved_per_s=base["bytes_moved"] / (timing["median_ms"] * 1e-3),
        fraction_of_ceiling=None,
        plausible=None,
    )
    return row


def migrate_comparison(old: dict[str, Any], name: str, raw: bytes):
    """The old comparison file as a schema-2 bench result of profile
    "compare". Returns (file stem, data)."""
    if old.get("schema") != 1 or "timings" not in (old.get("rows") or [{}])[0]:
        raise ValueError(f"{name}: not a schema-1 comparison file")
    device_kind = "cpu" if old["device"] == "cpu" else "cuda"
    identity_old = old["identity"]
    created = _utc(old["created_utc"])
    method = old["method"]
    label = [LABEL_CPU] if device_kind == "cpu" else [LABEL_NONE]
    rows = []
    for old_row in old["rows"]:
        n_rows, n_cols = old_row["shape"]
        numel = n_rows * n_cols
        base = {
            "kernel": COMPARE_KERNEL,
            "shape": {"rows": n_rows, "cols": n_cols},
            "shape_text": f"{n_rows}×{n_cols}",
            "dtype": old_row["dtype"],
            "layout": "contiguous",
            "device_kind": device_kind,
            "bytes_moved": old_row["bytes_moved"],
            "flops": numel,
            "metric": "bandwidth",
            # x, residual and the output, each numel elements.
            "working_set_bytes": 3 * numel * ITEMSIZE[old_row["dtype"]],
            "labels": label,
            "flags": [],
        }
        for provider, timing in old_row["timings"].items():
            kind = "triton" if provider == "custom" else provider
            row = _timed_row(
                base,
                "triton" if provider == "custom" else provider,
                kind,
                timing,
                old_row["first_call_ms"][provider],
            )
            row["correct"] = old_row["correct_before"][provider]
            row["correct_after_timing"] = old_row["correct_after"][provider]
            if kind == "triton":
                row["launches"] = None
            rows.append(row)
        custom = old_row.get("custom")
        if custom is not None and not custom.get("timed"):
            rows.append(
                {
                    **base,
                    "provider": "triton",
                    "provider_kind": "triton",
                    "timed": False,
                    "correct": bool(custom["correct"]),
                    "status": "interpreter-correctness-only"
                    if custom["correct"]
                    else "incorrect",
                    "launches": None,
                    "note": "Triton interpreter on the CPU: checked for "
                    "correctness, not timed",
                }
            )
    providers = ["eager", "compile", "triton"]
    data = {
        "schema_version": 2,
        "run_status": "complete",
        "identity": {
            "commit": identity_old["commit"],
            "dirty": identity_old.get("dirty"),
            "commit_source": "git",
            "runner_sources": {
                "scripts/qualify_report.py": identity_old["runner_sha256"],
                "scripts/timing.py": identity_old["timing_sha256"],
            },
            "argv": ["compare", "--device", old["device"]],
            "started_utc": created,
            "finished_utc": created,
            "profile": "compare",
            "device_kind": device_kind,
            "seed": None,
            "migrated_from": _origin(
                name,
                raw,
                [
                    "written by scripts/qualify_report.py compare; started_utc "
                    "is its created_utc, taken when the run ended",
                    "correctness was exact agreement with torch.relu(x + "
                    "residual) in the input dtype, before and after timing; "
                    "no error magnitudes or launches were recorded",
                    "inputs were torch.randn seeded with the sum of the shape's sizes",
                ],
            ),
        },
        "software": dict(old["software"]),
        "device": {"kind": device_kind, "name": old["device_name"]},
        "settings": {
            "rounds": method["rounds"],
            "repeats_per_round": method["repeats_per_round"],
            "warmup_ms": method["warmup_ms"],
            "flush_bytes": 0 if device_kind == "cpu" else None,
            "timer": old["timer"],
            "compile": method["compile"],
        },
        "kernels": {
            COMPARE_KERNEL: {
                "sources": {COMPARE_SOURCE: identity_old["kernel_sha256"]},
                "launcher": COMPARE_KERNEL,
                "metric": "bandwidth",
                "eager_is": "torch.relu(x + residual): two kernels",
                "r_baselines": ["eager", "compile"],
                "providers": providers,
            }
        },
        "ceilings": None,
        "rows": rows,
        "shape_errors": [],
    }
    if data["settings"]["flush_bytes"] is None:
        del data["settings"]["flush_bytes"]
    stamp = dt.datetime.fromisoformat(created).strftime("%Y%m%dT%H%M%SZ")
    short = identity_old["commit"][:7]
    return f"{stamp}-{device_kind}-compare-{short}", data


def migrate_file(path: Path, out_dir: Path = OUT) -> Path:
    """Migrate one old file; return the path written."""
    path = Path(path)
    raw = path.read_bytes()
    try:
        old = json.loads(raw)
    except ValueError as exc:
        raise ResultFileError(f"{display_path(path)}: not valid JSON: {exc}") from None
    if old.get("schema_version") == 1:
        data, target = migrate_bench(old, path.name, raw), Path(out_dir) / path.name
    elif old.get("schema") == 1:
        stem, data = migrate_comparison(old, path.name, raw)
        target = Path(out_dir) / f"{stem}.json"
    else:
        raise ResultFileError(f"{display_path(path)}: not an old result file")
    check_consistency(data, display_path(target))
    return write("bench", target, data)


def main(argv=None) -> int:
    parser = OneLineParser(prog=PROG)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    for path in args.files:
        try:
            written = migrate_file(path, args.out)
        except (OSError, ValueError) as exc:
            print(f"migrate: {exc}", file=sys.stderr)
            return 1
        print(f"migrate: {display_path(path)} -> {display_path(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
