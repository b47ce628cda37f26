"""Every kernel's versions on three architectures, read from the committed
compiled artifacts (docs/kernels/index.md). Evidence kind: compiled artifact:
which instructions and resources each version uses on each target, never how
fast it runs.

A version is a kernel function (``matmul_v3_kernel``); its row shows the
first artifact build that compiles it. Shared memory is what Triton asks for
at launch; a build that asks for more than the target allows a block
(``kernels/devices.py``) compiles, but its launch would fail there. The
kernels, their metrics and their goals come from the catalog
(``results/kernels.json``, which ``python -m scripts.catalog`` writes from the
descriptors and a test keeps current), so the site's build imports no kernel.
"""

from __future__ import annotations

import functools

import evidence
from evidence.tables import markdown_table
from kernels.devices import TARGETS

ARTIFACTS = evidence.RESULTS_DIR / "artifacts"
CATALOG = evidence.RESULTS_DIR / "kernels.json"


@functools.cache
def catalog() -> dict:
    """The committed catalog's kernels: metric, goals (each naming the
    version it applies to)."""
    return evidence.read("catalog", CATALOG).data["kernels"]


#: Opcode prefixes of the matrix instructions, per family, most specific first.
MATRIX_OPS = (
    ("UTCQMMA", "tcgen05 fp8 (UTCQMMA)"),
    ("UTCHMMA", "tcgen05 (UTCHMMA)"),
    ("QGMMA", "wgmma fp8 (QGMMA)"),
    ("HGMMA", "wgmma (HGMMA)"),
    ("QMMA", "mma.sync fp8 (QMMA)"),
    ("HMMA", "mma.sync (HMMA)"),
)


def load(kernel: str, target: str) -> dict | None:
    """A kernel's artifact for one target, or None when it is not built."""
    path = ARTIFACTS / f"{kernel}.{target}.json"
    if not path.is_file():
        return None
    return evidence.read("artifact", path).data


def matrix_path(sass_opcodes: dict[str, int]) -> str:
    """The matrix instruction family a build's SASS uses, or "no tensor cores"."""
    for prefix, name in MATRIX_OPS:
        if any(op.startswith(prefix) for op in sass_opcodes):
            return name
    return "no tensor cores"


def fits(record: dict, target: str) -> bool:
    """Whether the build's shared memory fits one block on the target."""
    return record["shared_bytes"] <= TARGETS[target].shared_bytes_per_block


def summary(record: dict, target: str, metric: str) -> str:
    """One cell: matrix path (for FLOP-bound kernels), registers, shared
    memory, spills, and whether it fits a block there."""
    parts = []
    if metric == "flops":
        parts.append(matrix_path(record["sass_opcodes"]))
    parts.append(f"{record['registers']} regs")
    parts.append(f"{record['shared_bytes'] / 1024:.0f} KiB smem")
    if record["spill_store_bytes"]:
        parts.append(f"{record['spill_store_bytes']} B spilled")
    if not fits(record, target):
        limit = TARGETS[target].shared_bytes_per_block // 1024
        parts.append(f"over the {limit} KiB a block may use")
    return ", ".join(parts)


@functools.cache
def version_rows() -> list[dict]:
    """One row per (kernel, function): its first build on every target
    (computed once per process: the artifacts do not change during a build)."""
    rows = []
    for name, entry in catalog().items():
        by_target = {target: load(name, target) for target in TARGETS}
        if not any(by_target.values()):
            continue
        picked = {f for goal in entry["goals"] for f in goal.get("applies_to", [])}
        seen = set()
        hopper = by_target["sm_90a"] or {"builds": []}
        for record in hopper["builds"]:
            function = record["function"]
            if function in seen:
                continue
            seen.add(function)
            cells = {}
            for target, artifact in by_target.items():
                builds = (artifact or {"builds": []})["builds"]
                # The same build, else the target's own tiles of the function.
                same = [r for r in builds if r["build"] == record["build"]] or [
                    r for r in builds if r["function"] == function
                ]
                cells[target] = (
                    summary(same[0], target, entry["metric"]) if same else "not built"
                )
            rows.append(
                {
                    "kernel": name,
                    "function": function,
                    "build": record["build"],
                    "goal": function in picked,
                    **cells,
                }
            )
    return rows


def versions_table() -> str:
    """The index page's table: every version, side by side on three targets."""
    header = ["kernel", "version", "goal", "build shown", *TARGETS]
    rows = [
        [
            row["kernel"],
            f"`{row['function']}`",
            "yes" if row["goal"] else "",
            f"`{row['build']}`",
            *(row[target] for target in TARGETS),
        ]
        for row in version_rows()
    ]
    return markdown_table(header, rows, escape=False)


#: Kernels written in Gluon, one function per target (kernels/matmul/gluon.py;
#: artifacts from python -m scripts.artifacts.gluon).
GLUON = {"matmul": {"sm_90a": "matmul_gluon_sm90_kernel",
                    "sm_100a": "matmul_gluon_sm100_kernel"}}  # fmt: skip


def gluon_table() -> str:
    """The Gluon versions beside the Triton ones: each target's own kernel
    (none for the others), read from results/artifacts/gluon/; no device has
    measured them."""
    rows = []
    for kernel, functions in GLUON.items():
        cells = []
        for target in TARGETS:
            path = ARTIFACTS / "gluon" / f"{kernel}.{target}.json"
            if target not in functions or not path.is_file():
                cells.append("no Gluon kernel")
                continue
            (record,) = evidence.read("artifact", path).data["builds"]
            cells.append(f"`{record['function']}`: " + summary(record, target, "flops"))
        rows.append([kernel, *cells, "not yet measured"])
    return markdown_table(["kernel", *TARGETS, "measured"], rows, escape=False)


def goals_table() -> str:
    """Each goal with the version it applies to (what the launcher runs at
    the goal's shapes); no device has measured any of them yet."""
    rows = []
    for name, entry in catalog().items():
        for goal in entry["goals"]:
            must = ", ".join(f"{t['metric']} ≥ {t['at_least']:g}" for t in goal["must"])
            functions = ", ".join(f"`{f}`" for f in goal.get("applies_to", []))
            rows.append([name, goal["regime"], must, functions, "not yet measured"])
    header = ["kernel", "regime", "must reach", "applies to", "evidence"]
    return markdown_table(header, rows, escape=False)


def facts() -> dict[str, str]:
    """Values the index page states."""
    rows = version_rows()
    over = [r for r in rows if "over the" in r["sm_120a"]]
    return {
        "versions": str(len(rows)),
        "targets": ", ".join(TARGETS),
        "sm120_over_limit": str(len(over)),
        "sm120_block_kib": str(TARGETS["sm_120a"].shared_bytes_per_block // 1024),
        "sm90_block_kib": str(TARGETS["sm_90a"].shared_bytes_per_block // 1024),
        "sm100_tensor_memory_kib": str(
            TARGETS["sm_100a"].tensor_memory_bytes_per_sm // 1024
        ),
    }
