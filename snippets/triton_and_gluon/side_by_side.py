"""Matmul version 2 in Triton and the same loop in Gluon, compiled for sm_90a
and sm_100a (docs/kernels/below-triton/triton-and-gluon.md). Evidence kind:
compiled artifact, read from the committed files: Triton's from
``results/artifacts/matmul.<target>.json`` (``python -m scripts.artifacts``),
Gluon's from ``results/artifacts/gluon/`` (``python -m
scripts.artifacts.gluon``), Triton 3.6's beside each. Never speed: neither
build has run on a device.
"""

from __future__ import annotations

from pathlib import Path

import evidence
from evidence.tables import markdown_table
from kernels.devices import TARGETS

ARTIFACTS = evidence.RESULTS_DIR / "artifacts"
GLUON = ARTIFACTS / "gluon"
TRITON_BUILD = "v2-bf16-tma-persistent"
GLUON_BUILD = "gluon-bf16-tma-persistent"
SHOWN = ("sm_90a", "sm_100a")
#: The Gluon config's tiles (kernels/matmul/gluon.py:GLUON_CONFIG), repeated
#: here so the site build imports no kernel; a test keeps them equal.
TILE = {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "STAGES": 3, "itemsize": 2}
MBARRIER_BYTES = (
    8  # one mbarrier object (PTX ISA, "Size and alignment of mbarrier object")
)


def record(language: str, target: str, triton: str | None = None) -> dict:
    """One build's record: ``language`` "triton" or "gluon"; ``triton``
    "3.6" for the GPU machine's compiler."""
    if language == "triton":
        folder = ARTIFACTS if triton is None else ARTIFACTS / f"triton-{triton}"
        build = TRITON_BUILD
    else:
        folder = GLUON if triton is None else GLUON / f"triton-{triton}"
        build = GLUON_BUILD
    path = Path(folder) / f"matmul.{target}.json"
    for entry in evidence.read("artifact", path).data["builds"]:
        if entry["build"] == build:
            return entry
    raise KeyError(f"{evidence.display_path(path)} has no build {build!r}")


def _count(ops: dict[str, int], *stems: str) -> int:
    return sum(n for op, n in ops.items() if op.split(".")[0] in stems)


# --8<-- [start:facts-of-a-build]
def build_facts(entry: dict) -> dict[str, str]:
    """The facts the table compares, from one build record."""
    sass, ptx = entry["sass_opcodes"], entry["ptx_opcodes"]
    waits = sorted({w for loop in entry["sass_loops"] for w in loop["waits"]})
    parts = entry.get("partitions", [])
    return {
        "matrix instructions in SASS": str(_count(sass, "HGMMA", "UTCHMMA")),
        "TMA loads / stores": f"{_count(sass, 'UTMALDG')} / {_count(sass, 'UTMASTG')}",
        "registers per thread": str(entry["registers"]),
        "spilled bytes": str(entry["spill_store_bytes"]),
        "shared memory (bytes)": f"{entry['shared_bytes']:,}",
        "mbarrier wait instructions": str(
            sass.get("SYNCS.PHASECHK.TRANS64.TRYWAIT", 0)
        ),
        "wgmma waits in loops": ", ".join(w.split()[-1] for w in waits) or "none",
        "warp partitions": " + ".join(
            "default" if p["warps"] is None else f"{p['warps']} warp" for p in parts
        )
        or "none",
        "setmaxnreg in PTX": str(_count(ptx, "setmaxnreg")),
    }
    # --8<-- [end:facts-of-a-build]


def facts_table(triton: str | None = None) -> str:
    """Rows: the facts; columns: Triton and Gluon on each target."""
    columns = [(lang, t) for t in SHOWN for lang in ("triton", "gluon")]
    built = {c: build_facts(record(*c, triton)) for c in columns}
    names = list(built[columns[0]])
    header = ["", *(f"{lang.capitalize()}, {t}" for lang, t in columns)]
    rows = [[name, *(built[c][name] for c in columns)] for name in names]
    return markdown_table(header, rows, "l" + "r" * len(columns))


# --8<-- [start:shared-budget]
def tile_bytes(stages: int = TILE["STAGES"]) -> int:
    """Shared memory the tiles need: ``stages`` slots of an A and a B tile,
    and one C tile to stage the store."""
    bm, bn, bk, size = (TILE[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "itemsize"))
    return stages * (bm * bk + bk * bn) * size + bm * bn * size


def fits_hopper(stages: int) -> bool:
    """Whether the tiles and one mbarrier per slot fit a Hopper block."""
    need = tile_bytes(stages) + stages * MBARRIER_BYTES
    return need <= TARGETS["sm_90a"].shared_bytes_per_block
    # --8<-- [end:shared-budget]


def tmem_columns(accumulators: int) -> int:
    """32-bit tensor-memory columns that ``accumulators`` float32 tiles of
    BLOCK_M x BLOCK_N take (one lane per row, BLOCK_M = 128)."""
    return accumulators * TILE["BLOCK_N"]


def facts() -> dict[str, str]:
    """Every value the page states, by name."""
    g90, t90 = record("gluon", "sm_90a"), record("triton", "sm_90a")
    g100, t100 = record("gluon", "sm_100a"), record("triton", "sm_100a")
    g36 = record("gluon", "sm_90a", "3.6")
    extra = g90["shared_bytes"] - tile_bytes()
    cols = TARGETS["sm_100a"].tensor_memory_bytes_per_sm // (128 * 4)
    return {
        "g90_regs": str(g90["registers"]),
        "t90_regs": str(t90["registers"]),
        "g100_regs": str(g100["registers"]),
        "t100_regs": str(t100["registers"]),
        "same_shared_90": "the same"
        if g90["shared_bytes"] == t90["shared_bytes"]
        else "not the same",
        "g100_parts": str(len(g100.get("partitions", []))),
        "t100_parts": str(len(t100.get("partitions", []))),
        "triton36_gluon_regs": str(g36["registers"]),
        "triton36_same": "the same"
        if build_facts(g36) == build_facts(g90)
        else "different",
        "triton36_sm100_regs": str(record("gluon", "sm_100a", "3.6")["registers"]),
        "tile_kib": f"{tile_bytes() / 1024:g}",
        "ex1.shared": f"{g90['shared_bytes']:,}",
        "ex1.tiles": f"{tile_bytes():,}",
        "ex1.extra": str(extra),
        "ex1.barriers": str(extra // MBARRIER_BYTES),
        "ex2.stages": "4",
        "ex2.need": f"{tile_bytes(4) + 4 * MBARRIER_BYTES:,}",
        "ex2.limit": f"{TARGETS['sm_90a'].shared_bytes_per_block:,}",
        "ex2.fits": "fits" if fits_hopper(4) else "does not fit",
        "ex3.columns": str(tmem_columns(2)),
        "ex3.total": str(cols),
        "ex3.left": str(cols - tmem_columns(2)),
    }


if __name__ == "__main__":
    for target in SHOWN:
        for lang in ("triton", "gluon"):
            f = build_facts(record(lang, target))
            print(
                f"{lang:6} {target:7} regs {f['registers per thread']:>3}, "
                f"partitions {f['warp partitions']}"
            )
    waits = build_facts(record("gluon", "sm_90a"))["wgmma waits in loops"]
    print("gluon  sm_90a  wgmma waits in its loops:", waits)
