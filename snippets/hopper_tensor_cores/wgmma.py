"""Hopper's warpgroup MMA and TMA, as arithmetic on tiles.

Shown on docs/kernels/matrix-multiplication/hopper-tensor-cores.md. A CPU
model: instruction shapes and operand rules of `wgmma.mma_async` (PTX ISA,
"Asynchronous Warpgroup Level Matrix Multiply-Accumulate"), the rules a
TMA descriptor must meet (CUDA Driver API, `cuTensorMapEncodeTiled`), the
shared memory a pipelined tile needs, and a persistent kernel's tile
schedule. The tests check the model against the compiled builds in
results/artifacts/matmul.sm_90a.json; the model says nothing about time.
"""

from __future__ import annotations

from evidence.artifacts import NOT_COMPILED
from evidence.tables import markdown_table
from kernels.devices import H200

# --8<-- [start:wgmma-shapes]
# PTX ISA, wgmma.mma_async (sm_90a), dense shapes: m is always 64, one
# warpgroup's rows; n is a multiple of 8 from 8 to 256; k covers 32 bytes
# of each operand row (16 for f16/bf16, 8 for tf32, 32 for 8-bit floats).
WARPS_PER_WARPGROUP = 4
THREADS_PER_WARPGROUP = 4 * 32
WGMMA_M = 64
WGMMA_N = range(8, 257, 8)
WGMMA_K_BYTES = 32


def wgmma_k(itemsize: int) -> int:
    """The k of one wgmma for inputs of `itemsize` bytes."""
    return WGMMA_K_BYTES // itemsize


def wgmma_per_k_step(
    block_m: int, block_n: int, block_k: int, num_warps: int, n: int, itemsize: int
) -> int:
    """wgmma instructions one warpgroup issues per BLOCK_K step of a
    BLOCK_M x BLOCK_N tile, when the warpgroups split the rows."""
    warpgroups = num_warps // WARPS_PER_WARPGROUP
    rows = block_m // warpgroups  # each warpgroup owns a band of rows
    if rows % WGMMA_M or block_n % n or n not in WGMMA_N:
        raise ValueError(f"{rows} rows x {block_n} columns do not tile by 64 x {n}")
    return rows // WGMMA_M * (block_n // n) * (block_k // wgmma_k(itemsize))


def accumulator_registers(block_m: int, block_n: int, num_warps: int) -> int:
    """32-bit registers per thread that hold the float32 accumulator: the
    D operand of wgmma lives in registers, spread over the warpgroups."""
    return block_m * block_n // (num_warps * 32)
    # --8<-- [end:wgmma-shapes]


OPERANDS = {  # PTX ISA, wgmma.mma_async: where each operand may live
    "A (m x k)": "registers, or shared memory through a matrix descriptor",
    "B (k x n)": "shared memory through a matrix descriptor, only",
    "C/D (m x n)": "registers, the accumulator, spread over the 128 threads",
}


def operands_table() -> str:
    return markdown_table(["operand", "lives in"], list(OPERANDS.items()))


# --8<-- [start:tma-rules]
def tma_problems(
    shape: tuple[int, ...],
    strides_bytes: tuple[int, ...],
    box: tuple[int, ...],
    itemsize: int,
    address: int = 0,
) -> list[str]:
    """What cuTensorMapEncodeTiled would reject for a tiled descriptor of a
    tensor with this shape (outermost first, as in PyTorch), byte strides
    of every dimension but the innermost, and box (the tile one copy
    moves). An empty list: the descriptor can be made."""
    problems = []
    if not 1 <= len(shape) <= 5:
        problems.append(f"rank {len(shape)}: a tensor map has 1 to 5 dimensions")
    if address % 16:
        problems.append(f"base address {address} is not a multiple of 16 bytes")
    for dim in shape:
        if not 0 < dim <= 2**32:
            problems.append(f"dimension {dim} is not in 1..2**32")
    for stride in strides_bytes:
        if stride % 16 or stride >= 2**40:
            problems.append(
                f"stride {stride} bytes is not a multiple of 16 below 2**40"
            )
    for size in box:
        if not 0 < size <= 256:
            problems.append(f"box size {size} is not in 1..256")
    if box and box[-1] * itemsize % 16:
        problems.append(
            f"inner box of {box[-1] * itemsize} bytes is not a multiple of 16"
        )
    return problems
    # --8<-- [end:tma-rules]


# --8<-- [start:shared-memory]
MBARRIER_BYTES = 8  # one 64-bit mbarrier object per pipeline stage


def row_multiple_text(itemsize: int = 2) -> str:
    """The row length, in elements, a row stride must be a multiple of."""
    for n in range(1, 17):
        if not tma_problems((2, n), (n * itemsize,), (1, n), itemsize):
            return f"{n} elements"
    raise ValueError(f"itemsize must divide 16, got {itemsize}")


def pipelined_shared_bytes(
    block_m: int, block_n: int, block_k: int, stages: int, itemsize: int, tma: bool
) -> int:
    """Shared memory of a pipelined matmul tile: `stages` copies of the A
    and B tiles; with TMA, also the C tile staged for the bulk store and an
    mbarrier per stage that counts the bytes each copy delivers."""
    per_stage = (block_m * block_k + block_k * block_n) * itemsize
    total = stages * per_stage
    if tma:
        total += block_m * block_n * itemsize + stages * MBARRIER_BYTES
    return total
    # --8<-- [end:shared-memory]


# --8<-- [start:persistent]
def persistent_schedule(tiles: int, programs: int) -> list[list[int]]:
    """Tiles each program of a persistent launch computes: program p takes
    tiles p, p + programs, p + 2 * programs, ... (the kernel's tl.range)."""
    return [list(range(p, tiles, programs)) for p in range(min(tiles, programs))]
    # --8<-- [end:persistent]


def persistent_text(
    M: int = 8192,
    N: int = 8192,
    block_m: int = 128,
    block_n: int = 256,
    programs: int = H200.sm_count,
) -> str:
    tiles = -(-M // block_m) * -(-N // block_n)
    counts = [len(s) for s in persistent_schedule(tiles, programs)]
    most, least = max(counts), min(counts)
    busy = counts.count(most)
    return (
        f"{tiles:,} tiles of {block_m} × {block_n} over {programs} programs: "
        f"{busy} programs compute {most} tiles and {programs - busy} compute "
        f"{least}"
    )


def shapes_text(itemsize: int = 2) -> str:
    return (
        f"m = {WGMMA_M}, n from {WGMMA_N[0]} to {WGMMA_N[-1]} in steps of "
        f"{WGMMA_N.step}, k = {wgmma_k(itemsize)}"
    )


def tma_example(part: str = "answer") -> str:
    """Exercise: a bf16 A of 4096 x 1020 (K = 1020), a 128 x 64 box."""
    shape, box, itemsize = (4096, 1020), (128, 64), 2
    if part == "question":
        return (
            f"a row-major bf16 A of {shape[0]:,} × {shape[1]:,} and a "
            f"{box[0]} × {box[1]} box"
        )
    problems = tma_problems(shape, (shape[1] * itemsize,), box, itemsize)
    padded = -(-shape[1] // 8) * 8
    fixed = tma_problems(shape, (padded * itemsize,), box, itemsize)
    return (
        "; ".join(problems) + f". Pad the rows to {padded:,} elements "
        f"({padded * itemsize:,} bytes) and the descriptor is valid"
        + ("" if not fixed else f" except: {fixed}")
        + "; kernels/matmul/ sends such shapes to version 1 instead."
    )


ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4}


def _is_tma(build: dict) -> bool:
    return any(str(t).startswith("tensordesc") for t in build["signature"].values())


def model_rows(op: str = "matmul") -> list[dict]:
    """For each build with a warpgroup MMA: the model's wgmma count per K
    step, accumulator registers and shared memory, beside the artifact's."""
    from evidence.artifacts import hgmma_shape, load

    data = load(op)
    rows = []
    for b in data["builds"] if data else []:
        shapes = [(o, n) for o, n in b["sass_opcodes"].items() if hgmma_shape(o)]
        if not shapes or b["constexprs"].get("EPILOGUE_SPLIT", 1) != 1:
            continue  # (version 3 stages half a C tile: not this page's model)
        (opcode, count), c = shapes[0], b["constexprs"]
        _, n, _ = hgmma_shape(opcode)
        size = ITEMSIZE[b["dtype"]]
        tile = (c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"])
        shared = pipelined_shared_bytes(*tile, b["num_stages"], size, _is_tma(b))
        rows.append(
            {
                "build": b["build"],
                "opcode": opcode,
                "count": count,
                "model_count": wgmma_per_k_step(*tile, b["num_warps"], n, size),
                "accumulator": accumulator_registers(*tile[:2], b["num_warps"]),
                "registers": b["registers"],
                "model_shared": shared,
                "shared": b["shared_bytes"],
                "tma": _is_tma(b),
            }
        )
    return rows


def model_table(op: str = "matmul") -> str:
    """Markdown: the model against every compiled build with HGMMA."""
    rows = []
    for r in model_rows(op):
        agree = "yes" if r["model_shared"] == r["shared"] else "no"
        rows.append(
            (
                f"`{r['build']}`",
                "TMA" if r["tma"] else "pointers",
                f"{r['model_count']} / {r['count']}",
                f"{r['accumulator']} of {r['registers']}",
                f"{r['model_shared']:,} / {r['shared']:,}",
                agree,
            )
        )
    header = [
        "build",
        "operands by",
        "wgmma per K step: model / SASS",
        "accumulator registers of all",
        "shared bytes: model / artifact",
        "shared memory agrees",
    ]
    return markdown_table(header, rows, "llrrrl", escape=False)


def facts(build: str = "v2-bf16-tma-persistent") -> dict[str, str]:
    """The model's numbers for one build, as text, by name: 'accumulator'
    (its accumulator registers beside the artifact's)."""
    rows = {r["build"]: r for r in model_rows()}
    if build not in rows:
        return {"accumulator": NOT_COMPILED}
    r = rows[build]
    accumulator = f"{r['accumulator']} of its {r['registers']} registers per thread"
    return {"accumulator": accumulator}


def builds_reading(op: str = "matmul") -> str:
    """Sentences comparing the pointer builds with the TMA builds."""
    rows = model_rows(op)
    tma = [r for r in rows if r["tma"]]
    plain = [r for r in rows if not r["tma"]]
    if not tma:
        return (
            "The artifact holds no TMA build yet: version 2 of the matmul, a "
            "persistent TMA kernel, is being added."
        )
    a, b = plain[0], tma[0]
    return (
        f"Both versions multiply with the same `{a['opcode']}`. They differ "
        f"in how the tiles arrive: `{a['build']}` copies them with `LDGSTS` "
        f"(every thread its own `cp.async`), `{b['build']}` with `UTMALDG` "
        "(one bulk tensor copy per tile) and the `SYNCS` instructions that "
        "arrive on and wait for the mbarriers. The TMA build computes no "
        f"per-thread load addresses; it holds {b['registers']} registers per "
        f"thread against {a['registers']}, and it needs "
        f"{b['shared'] - a['shared']:,} more bytes of shared memory: the "
        "staged C tile for its bulk store and the mbarriers."
    )


def model_reading(op: str = "matmul") -> str:
    rows = model_rows(op)
    wrong = [r["build"] for r in rows if r["model_shared"] != r["shared"]]
    counts = all(r["model_count"] == r["count"] for r in rows)
    text = (
        "The instruction counts agree for every build"
        if counts
        else "The instruction counts disagree for some builds"
    )
    if not wrong:
        return text + ", and so does the shared memory."
    return text + (
        f". The shared memory disagrees for {', '.join(f'`{w}`' for w in wrong)}: "
        "without the alignment hint the compiler cannot use `cp.async`, loads "
        "through registers and keeps one buffer instead of a pipeline; the "
        "[tiled-matmul lesson](tiled-matmul.md#what-the-compiler-made-of-it) "
        "reads that build."
    )


EXERCISE = {"block_m": 128, "block_n": 128, "block_k": 64, "num_warps": 4, "n": 128}


def exercise_text(part: str = "answer") -> str:
    e = EXERCISE
    if part == "question":
        return (
            f"{e['block_m']} × {e['block_n']} × {e['block_k']} runs on "
            f"{e['num_warps']} warps with `wgmma` of n = {e['n']}"
        )
    per_step = wgmma_per_k_step(
        e["block_m"], e["block_n"], e["block_k"], e["num_warps"], e["n"], 2
    )
    regs = accumulator_registers(e["block_m"], e["block_n"], e["num_warps"])
    groups = e["num_warps"] // WARPS_PER_WARPGROUP
    return (
        f"{groups} warpgroup owns all {e['block_m']} rows: "
        f"{e['block_m'] // WGMMA_M} bands of {WGMMA_M} × "
        f"{e['block_k'] // wgmma_k(2)} slices of k = {wgmma_k(2)} = "
        f"{per_step} wgmma per K step. The accumulator takes "
        f"{e['block_m']} × {e['block_n']} / {e['num_warps'] * 32} = {regs} "
        "registers per thread, as many as the 8-warp 128 × 256 tile: half "
        "the tile over half the threads."
    )


def programs_per_sm_text(build: str = "v2-bf16-tma-persistent") -> str:
    """Programs of one build that fit on an SM, from its artifact."""
    from evidence.artifacts import build as find
    from evidence.artifacts import load
    from snippets.lib.matmul_artifacts import (
        SM90_SHARED_BYTES_PER_SM,
        programs_per_sm,
    )

    if load("matmul") is None or build not in [r["build"] for r in model_rows()]:
        return NOT_COMPILED
    b = find("matmul", build)
    fit = programs_per_sm(b["registers"], b["num_warps"], b["shared_bytes"])
    return (
        f"`{build}` uses {b['shared_bytes'] / 1024:.0f} KiB of the SM's "
        f"{SM90_SHARED_BYTES_PER_SM // 1024} KiB of shared memory, so "
        f"{fit} program{'s' if fit != 1 else ''} fit{'' if fit != 1 else 's'} "
        "on an SM at a time"
    )


def warpgroup_figure(block_m=128, block_n=256, block_k=64, num_warps=8, n=256):
    """One K step of a BLOCK_M x BLOCK_N tile: each warpgroup owns a band
    of 64 rows and issues one wgmma per 64 x n x k block of it."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, INK, MUTED, PHONE_WIDTH_IN, figure

    k = wgmma_k(2)
    warpgroups = num_warps // WARPS_PER_WARPGROUP
    # Two panels stacked, the C tile above its K step, so the figure fits a
    # phone's column without scrolling.
    fig = figure(PHONE_WIDTH_IN, 4.4)
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.96))
    ax.set_axis_off()
    gap = 40  # between the panels, room for the K step's title
    ax.set_xlim(-6, block_n + 6)
    ax.set_ylim(2 * block_m + gap + 6, -24)
    for g in range(warpgroups):  # the C tile, one band per warpgroup
        rows = block_m // warpgroups
        for j in range(block_n // n):
            ax.add_patch(
                Rectangle(
                    (j * n, g * rows),
                    n,
                    rows,
                    edgecolor=INK,
                    facecolor=ACCENT if g % 2 else MUTED,
                    alpha=0.5,
                )
            )
        ax.text(
            block_n / 2,
            g * rows + rows / 2,
            f"warpgroup {g}: rows {g * rows}..{(g + 1) * rows - 1}",
            ha="center",
            va="center",
            color=INK,
        )
    ax.text(0, -8, f"C tile {block_m} × {block_n} (float32, registers)", color=INK)
    y0 = block_m + gap
    for step in range(block_k // k):  # the K step, k columns per wgmma
        ax.add_patch(
            Rectangle(
                (step * 2 * k, y0),
                2 * k,
                block_m,
                edgecolor=INK,
                facecolor=MUTED,
                alpha=0.3,
            )
        )
        ax.text(
            step * 2 * k + k,
            y0 + block_m / 2,
            f"k{step}",
            ha="center",
            va="center",
            color=INK,
        )
    ax.text(0, y0 - 8, f"K step: {block_k // k} × k{k}", color=INK)
    return fig


if __name__ == "__main__":
    print(f"bf16 wgmma shapes: {shapes_text()}")
    per_step = wgmma_per_k_step(128, 256, 64, 8, 256, 2)
    print(f"128x256x64 tile, 8 warps: {per_step} wgmma per warpgroup per K step")
    print(f"accumulator registers per thread: {accumulator_registers(128, 256, 8)}")
    for tma in (False, True):
        size = pipelined_shared_bytes(128, 256, 64, 3, 2, tma)
        print(f"shared memory, {'TMA' if tma else 'cp.async'} build: {size:,} bytes")
    print(persistent_text())
    # tma_example() answers the page's exercise 2, so it is not printed here.
