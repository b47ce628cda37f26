"""Every project kernel placed by its cost model: intensity, bound, floor
(docs/kernels/where-time-goes/napkin-math-and-the-roofline.md).

Standard library only: the device figures come from ``kernels.devices``
(through ``floor.py``) and every kernel's bytes and FLOPs from
``kernel_costs.json``, which ``kernel_costs.py`` derives from the kernels'
own descriptors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from evidence.text import inert
from kernels.devices import H200
from snippets.napkin_math_and_the_roofline.floor import (
    PEAKS,
    bound,
    fmt_bytes,
    fmt_num,
    fmt_time,
    ridge,
    time_floor,
    time_floor_s,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
COSTS = HERE / "kernel_costs.json"

# -------------------------------------------------------- the kernel catalog


def kernel_costs(path: Path = COSTS) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def compute_dtype(entry: dict) -> str:
    """The roof a kernel's arithmetic meets: matmul-like kernels ("flops"
    metric) run on bf16 tensor cores; the rest do fp32 math on CUDA cores."""
    return "bf16" if entry["metric"] == "flops" else "fp32"


def points(path: Path = COSTS) -> list[dict]:
    """One row per kernel and benchmark shape, placed by its cost model."""
    rows = []
    for name, entry in kernel_costs(path).items():
        dtype = compute_dtype(entry)
        for point in entry["points"]:
            flops, nbytes = point["flops"], point["bytes"]
            rows.append(
                {
                    "kernel": name,
                    "title": entry["title"],
                    "shape": point["shape"],
                    "quick": point["quick"],
                    "dtype": dtype,
                    "flops": flops,
                    "bytes": nbytes,
                    "intensity": flops / nbytes,
                    "floor_s": time_floor_s(flops, nbytes, dtype),
                    "bound": bound(flops, nbytes, dtype),
                }
            )
    return rows


def point(kernel: str, shape: str | None = None) -> dict:
    """A kernel's quick shape, or the named shape."""
    for row in points():
        if row["kernel"] == kernel and (
            row["shape"] == shape if shape else row["quick"]
        ):
            return row
    raise KeyError(f"no point {kernel!r} {shape!r} in {COSTS.name}")


def points_table() -> str:
    """The quick shape of every kernel: intensity, bound, floor."""
    from evidence.tables import markdown_table

    rows = [
        [
            r["title"],
            r["shape"],
            fmt_bytes(r["bytes"]),
            fmt_num(r["flops"]),
            fmt_num(r["intensity"]),
            r["dtype"],
            r["bound"],
            fmt_time(r["floor_s"]),
        ]
        for r in points()
        if r["quick"]
    ]
    header = ["kernel", "shape", "bytes", "FLOPs", "FLOP/B", "roof", "bound", "floor"]
    return markdown_table(header, rows, "llrrrllr")


# --------------------------------------------------- measured points, if any


def measured_points(bench_dir: Path = ROOT / "results" / "bench") -> list[dict]:
    """Achieved FLOP/s of the custom kernel in the newest GPU benchmark file:
    rows timed on a GPU, correct and plausible. None exist until a GPU run
    is committed; CPU rows are never speed evidence and are skipped."""
    gpu_files = []
    for path in sorted(Path(bench_dir).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("identity", {}).get("device_kind") == "cuda":
            gpu_files.append((data["identity"].get("started_utc", ""), path, data))
    if not gpu_files:
        return []
    _, path, data = max(gpu_files)
    found = []
    for row in data.get("rows", []):
        ok = row.get("status") == "ok" and row.get("timed") and row.get("plausible")
        if row.get("provider") != "triton" or not ok or not row.get("flops"):
            continue
        seconds = row["median_ms"] * 1e-3
        found.append(
            {
                "kernel": row["kernel"],
                "shape": row.get("shape_text", ""),
                "intensity": row["flops"] / row["bytes_moved"],
                "flop_per_s": row["flops"] / seconds,
                "device": data["device"]["name"],
                "file": path.name,
            }
        )
    return found


def measured_text() -> str:
    found = measured_points()
    if not found:
        return (
            "No GPU benchmark result is committed yet, so the plot shows "
            "predictions only"
        )
    return (
        f"Hollow markers are {len(found)} measured points from "
        f"<code>{inert(found[0]['file'])}</code> ({inert(found[0]['device'])})"
    )


# ---------------------------------------------------- prose and exercises


def fmt_ridge(dtype: str) -> str:
    return f"{fmt_num(ridge(dtype))} FLOP/B"


def kernel_facts(row: dict) -> dict[str, str]:
    """The numbers about one kernel's point that prose shows."""
    return {
        "shape": row["shape"],
        "bytes": fmt_bytes(row["bytes"]),
        "flops": fmt_num(row["flops"]),
        "intensity": f"{fmt_num(row['intensity'])} FLOP/B",
        "floor": fmt_time(row["floor_s"]),
        "bound": row["bound"],
        "memory_time": fmt_time(row["bytes"] / H200.hbm_bytes_per_s),
        "compute_time": fmt_time(row["flops"] / PEAKS[row["dtype"]]),
        "dtype": row["dtype"],
    }


def shape_key(shape: str) -> str:
    """A shape as a fact key: '1024×1024×1024' -> '1024x1024x1024'."""
    return re.sub(r"[^\w.-]", "x", shape)


def floor_us(kernel: str, shape: str | None = None) -> float:
    """The time floor in microseconds (the predict-then-check answer)."""
    return round(point(kernel, shape)["floor_s"] * 1e6, 1)


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "ridge.bf16": fmt_ridge("bf16"),
        "ridge.fp32": fmt_ridge("fp32"),
        "ridge.fp8": fmt_ridge("fp8"),
        "exercise-answer": fmt_exercise_answer(),
    }


def facts() -> dict[str, str]:
    """Device figures and catalog counts the page states by name; a page
    reads one as ``<!-- fact: <this file>:h200.bandwidth -->``."""
    rows = points()
    out = {
        **page_facts(),
    }
    for row in rows:
        # kernel.what for the quick shape, kernel.shape.what for every shape
        found = kernel_facts(row)
        names = [f"{row['kernel']}.{shape_key(row['shape'])}"]
        names += [row["kernel"]] if row["quick"] else []
        for name in names:
            out.update({f"{name}.{what}": text for what, text in found.items()})
    out |= {
        "h200.bandwidth": f"{H200.hbm_bytes_per_s / 1e12:.3g} TB/s",
        "h200.l2": f"{H200.l2_bytes / 2**20:.0f} MB",
        "h200.bf16-sparse": f"{H200.bf16_sparse_flop_per_s / 1e12:,.4g} TFLOP/s",
        # An FMA is two FLOPs; an add, max or select is one operation per
        # lane per clock, so those run at half the FMA rate.
        "h200.fp32-non-fma": f"{H200.fp32_flop_per_s / 2 / 1e12:,.4g} T op/s",
        "ridge.fp32-non-fma": (
            f"{fmt_num(H200.fp32_flop_per_s / 2 / H200.hbm_bytes_per_s)} op/B"
        ),
        "h200.exp2": f"{H200.exp2_per_s / 1e12:.2g}×10¹² per second",
        "count.kernels": str(len({r["kernel"] for r in rows})),
        "count.shapes": str(len(rows)),
        "count.memory-bound": str(sum(r["bound"] == "memory-bound" for r in rows)),
    }
    for dtype, peak in PEAKS.items():
        out[f"h200.{dtype}"] = f"{peak / 1e12:,.4g} TFLOP/s"
    floors = exercise()
    out["exercise.fp32-over-bf16"] = f"{floors['fp32'][1] / floors['bf16'][1]:.0f}×"
    return out


def exercise(kernel: str = "matmul", shape: str = "1024×1024×1024") -> dict:
    """Floor and bound of one catalog shape at each dtype's roof, same bytes."""
    row = point(kernel, shape)
    return {
        dtype: (
            bound(row["flops"], row["bytes"], dtype),
            time_floor_s(row["flops"], row["bytes"], dtype),
        )
        for dtype in ("bf16", "fp8", "fp32")
    }


def fmt_exercise_answer(kernel: str = "matmul", shape: str = "1024×1024×1024") -> str:
    parts = [
        f"{dtype}: {b}, floor {fmt_time(t)}"
        for dtype, (b, t) in exercise(kernel, shape).items()
    ]
    return "; ".join(parts)


if __name__ == "__main__":
    for dtype in PEAKS:
        print(f"{dtype:>5} ridge: {fmt_ridge(dtype)}")
    for row in points():
        if row["quick"]:
            print(
                f"{row['title']:>20} {row['shape']:>20}: "
                f"{fmt_num(row['intensity']):>7} FLOP/B, {row['bound']}, "
                f"floor {fmt_time(row['floor_s'])}"
            )
    # The calculator's first values: 1 GFLOP over 6 MB.
    print(f"time_floor(flops=1e9, bytes_moved=6e6): {time_floor(1e9, 6e6)}")
