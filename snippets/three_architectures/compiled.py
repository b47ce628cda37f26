"""One matmul and one attention source as compiled for sm_90a, sm_100a and
sm_120a (lesson: The same kernel on three architectures). Evidence kind:
compiled artifact, read from results/artifacts/<kernel>.<target>.json
(``python -m scripts.artifacts`` writes them); never speed.

Each target gets the build the launcher would run there: matmul version 2 at
8192 cubed and attention version 3 with TMA at head dimension 128 (sm_120a
compiles its own tiles of both, ``-sm120``). Attention's Hopper tiles are
also compiled for sm_120a (``-hopper-tiles``), as the record of why it takes
its own.
"""

from __future__ import annotations

from evidence import artifacts
from evidence.tables import markdown_table
from kernels.devices import TARGETS

#: The build each page column shows, per kernel and target.
BUILDS = {
    "matmul": {
        "sm_90a": "v2-bf16-tma-persistent",
        "sm_100a": "v2-bf16-tma-persistent",
        "sm_120a": "v2-bf16-tma-persistent-sm120",
    },
    "attention": {
        "sm_90a": "v3-bf16-d128-tma",
        "sm_100a": "v3-bf16-d128-tma",
        "sm_120a": "v3-bf16-d128-tma-sm120",
    },
}
#: Attention version 3 with Hopper's tiles, compiled for sm_120a.
HOPPER_TILES_ON_SM120 = "v3-bf16-d128-tma-hopper-tiles"

# --8<-- [start:families]
#: Matrix instructions by SASS opcode stem: what Triton's tl.dot became.
MATRIX = {
    "HGMMA": "wgmma (HGMMA), one warpgroup, asynchronous",
    "UTCHMMA": "tcgen05.mma (UTCHMMA), one thread issues, tensor memory",
    "HMMA": "mma.sync (HMMA), one warp, synchronous",
}
#: Memory paths by opcode stem.
PATHS = {
    "UTMALDG": "TMA tile copies into shared memory",
    "LDGSTS": "cp.async copies into shared memory",
    "LDSM": "ldmatrix: shared memory to registers",
    "LDTM": "tensor memory to registers",
}
# --8<-- [end:families]


def record(kernel: str, target: str, name: str | None = None) -> dict:
    """The build the lesson shows for one kernel on one target (or the
    build called ``name``)."""
    path = artifacts.ARTIFACTS / f"{kernel}.{target}.json"
    data = artifacts.load(kernel, path)
    if data is None:
        raise FileNotFoundError(f"{path}: run `python -m scripts.artifacts {kernel}`")
    name = name or BUILDS[kernel][target]
    return next(b for b in data["builds"] if b["build"] == name)


def stems(entry: dict) -> dict[str, int]:
    """SASS counts summed by stem, for the stems this lesson reads."""
    return artifacts.stem_counts(entry["sass_opcodes"], (*MATRIX, *PATHS))


def loop_matrix_count(entry: dict) -> int:
    """Matrix instructions inside the build's loops: one trip is one K step
    (or one key block)."""
    stem = matrix_instruction(entry)
    return sum(
        n
        for loop in entry["sass_loops"]
        for op, n in loop["opcodes"].items()
        if op.split(".", 1)[0] == stem
    )


def matrix_instruction(entry: dict) -> str:
    found = [stem for stem in MATRIX if stems(entry).get(stem)]
    return found[0] if found else "none"


def tile(entry: dict) -> str:
    """The tile and pipeline depth the build was compiled with."""
    c = entry["constexprs"]
    k = c.get("BLOCK_K", c.get("BLOCK_D"))
    return f"{c['BLOCK_M']} × {c['BLOCK_N']} × {k}, {entry['num_stages']} stages"


def fits(entry: dict, target: str) -> bool:
    return entry["shared_bytes"] <= TARGETS[target].shared_bytes_per_block


def rows(kernel: str) -> list[list[str]]:
    """One row per quantity, one column per target."""
    entries = {t: record(kernel, t) for t in TARGETS}
    counts = {t: stems(e) for t, e in entries.items()}
    table = [
        ["build", *(f"`{e['build']}`" for e in entries.values())],
        ["tile", *(tile(e) for e in entries.values())],
        [
            "matrix instruction",
            *(f"`{matrix_instruction(e)}`" for e in entries.values()),
        ],
        [
            "its SASS count",
            *(str(counts[t].get(matrix_instruction(e), 0)) for t, e in entries.items()),
        ],
    ]
    for stem in PATHS:
        table.append([f"`{stem}`", *(str(counts[t].get(stem, 0)) for t in TARGETS)])
    table += [
        ["registers / thread", *(str(e["registers"]) for e in entries.values())],
        [
            "shared memory (KiB)",
            *(f"{e['shared_bytes'] / 1024:.0f}" for e in entries.values()),
        ],
        [
            "block limit (KiB)",
            *(str(TARGETS[t].shared_bytes_per_block // 1024) for t in TARGETS),
        ],
        ["spilled (bytes)", *(str(artifacts.spills(e)) for e in entries.values())],
    ]
    return table


def side_by_side(kernel: str) -> str:
    """The page's table for one kernel: quantities down, targets across."""
    return markdown_table(
        ["", *TARGETS], rows(kernel), "l" + "r" * len(TARGETS), escape=False
    )


def facts() -> dict[str, str]:
    """Every artifact value the lesson states in prose."""
    mm = {t: record("matmul", t) for t in TARGETS}
    att = {t: record("attention", t) for t in TARGETS}
    hopper_tiles = record("attention", "sm_120a", HOPPER_TILES_ON_SM120)
    return {
        "sm120_matmul_hmma": str(loop_matrix_count(mm["sm_120a"])),
        "sm90_matmul_hgmma": str(loop_matrix_count(mm["sm_90a"])),
        "sm100_matmul_ldtm": str(stems(mm["sm_100a"]).get("LDTM", 0)),
        "sm90_matmul_registers": str(mm["sm_90a"]["registers"]),
        "sm100_matmul_registers": str(mm["sm_100a"]["registers"]),
        "sm120_matmul_registers": str(mm["sm_120a"]["registers"]),
        "sm120_matmul_tile": tile(mm["sm_120a"]),
        "sm90_matmul_tile": tile(mm["sm_90a"]),
        "sm120_attention_spills": f"{artifacts.spills(att['sm_120a']):,}",
        "sm120_attention_registers": str(att["sm_120a"]["registers"]),
        "sm120_attention_tile": tile(att["sm_120a"]),
        "sm120_hopper_tiles_spills": f"{artifacts.spills(hopper_tiles):,}",
        "sm120_hopper_tiles_registers": str(hopper_tiles["registers"]),
        "sm90_attention_tile": tile(att["sm_90a"]),
        "sm100_attention_spills": f"{artifacts.spills(att['sm_100a']):,}",
        "all_fit": "every"
        if all(fits(e, t) for d in (mm, att) for t, e in d.items())
        else "not every",
    }


def summary_line(kernel: str, target: str) -> str:
    """One build in a line: matrix instruction, registers, shared, spills."""
    e = record(kernel, target)
    limit = TARGETS[target].shared_bytes_per_block // 1024
    return (
        f"{kernel} {target}: {matrix_instruction(e)} x "
        f"{stems(e).get(matrix_instruction(e), 0)} in SASS, "
        f"{e['registers']} registers, "
        f"{e['shared_bytes'] / 1024:.0f} of {limit} KiB shared, "
        f"{artifacts.spills(e)} B spilled"
    )


if __name__ == "__main__":
    for kernel in BUILDS:
        for target in TARGETS:
            print(summary_line(kernel, target))
