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

from evidence.artifacts import NOT_COMPILED, THREADS_PER_WARP
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


def row_multiple(itemsize: int = 2) -> int:
    """The row length, in elements, a row stride must be a multiple of."""
    for n in range(1, 17):
        if not tma_problems((2, n), (n * itemsize,), (1, n), itemsize):
            return n
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
    return {
        "accumulator": accumulator,
        "shapes.m": f"{WGMMA_M}",
        "shapes.n-from": f"{WGMMA_N[0]}",
        "shapes.n-to": f"{WGMMA_N[-1]}",
        "shapes.n-step": f"{WGMMA_N.step}",
        "shapes.k": f"{wgmma_k(2)}",
        "row-multiple": f"{row_multiple(2)} elements",
        **persistent_facts(),
        **exercise_facts(),
        **artifact_facts(),
    }


EXERCISE = {"block_m": 128, "block_n": 128, "block_k": 64, "num_warps": 4, "n": 128}


#: The page's own tile, whose accumulator the exercise's equals: (warps,
#: BLOCK_M, BLOCK_N).
EXERCISE_SAME_AS = (8, 128, 256)
#: The persistent launch the page counts, and the TMA exercise's operand.
PERSISTENT = {"M": 8192, "N": 8192, "block_m": 128, "block_n": 256}
TMA_EXERCISE = {"shape": (4096, 1020), "box": (128, 64), "itemsize": 2}


def persistent_facts(programs: int = H200.sm_count) -> dict[str, str]:
    """How the persistent launch spreads its tiles over the programs."""
    p = PERSISTENT
    tiles = -(-p["M"] // p["block_m"]) * -(-p["N"] // p["block_n"])
    counts = [len(s) for s in persistent_schedule(tiles, programs)]
    most, busy = max(counts), counts.count(max(counts))
    return {
        "persistent.tiles": f"{tiles:,}",
        "persistent.tile": f"{p['block_m']} × {p['block_n']}",
        "persistent.programs": f"{programs}",
        "persistent.busy": f"{busy}",
        "persistent.most": f"{most}",
        "persistent.rest": f"{programs - busy}",
        "persistent.least": f"{min(counts)}",
    }


def exercise_facts() -> dict[str, str]:
    """Both exercises: the wgmma count and registers of a 128 x 128 tile,
    and the TMA descriptor's problems with a 1,020-wide bf16 A."""
    e = EXERCISE
    tile = (e["block_m"], e["block_n"], e["block_k"])
    out = {f"exercise.{k}": f"{v}" for k, v in e.items()}
    out.update({
        "exercise.groups": f"{e['num_warps'] // WARPS_PER_WARPGROUP}",
        "exercise.bands": f"{e['block_m'] // WGMMA_M}",
        "exercise.slices": f"{e['block_k'] // wgmma_k(2)}",
        "exercise.per-step": f"{wgmma_per_k_step(*tile, e['num_warps'], e['n'], 2)}",
        "exercise.threads": f"{e['num_warps'] * THREADS_PER_WARP}",
        "exercise.registers": f"{accumulator_registers(*tile[:2], e['num_warps'])}",
        "exercise.same-as": "{}-warp {} × {} tile".format(*EXERCISE_SAME_AS),
    })  # fmt: skip
    shape, box, size = TMA_EXERCISE.values()
    padded = -(-shape[1] // 8) * 8
    out.update({
        "tma.shape": f"{shape[0]:,} × {shape[1]:,}",
        "tma.box": f"{box[0]} × {box[1]}",
        "tma.problems": "; ".join(tma_problems(shape, (shape[1] * size,), box, size)),
        "tma.padded": f"{padded:,}",
        "tma.padded-bytes": f"{padded * size:,}",
    })  # fmt: skip
    return out


def artifact_facts(build: str = "v2-bf16-tma-persistent") -> dict[str, str]:
    """The pointer build against the TMA build, and how many TMA programs
    fit on an SM, from the artifact."""
    from evidence.artifacts import build as find
    from snippets.lib.matmul_artifacts import SM90_SHARED_BYTES_PER_SM, programs_per_sm

    rows = model_rows()
    a, b = [r for r in rows if not r["tma"]][0], [r for r in rows if r["tma"]][0]
    wrong = [r["build"] for r in rows if r["model_shared"] != r["shared"]]
    t = find("matmul", build)
    fit = programs_per_sm(t["registers"], t["num_warps"], t["shared_bytes"])
    return {
        "builds.opcode": f"`{a['opcode']}`",
        "builds.pointers": f"`{a['build']}`",
        "builds.tma": f"`{b['build']}`",
        "builds.tma-registers": f"{b['registers']}",
        "builds.pointer-registers": f"{a['registers']}",
        "builds.extra-shared": f"{b['shared'] - a['shared']:,}",
        "model.disagree": ", ".join(f"`{w}`" for w in wrong),
        "fit.build": f"`{build}`",
        "fit.shared": f"{t['shared_bytes'] / 1024:.0f} KiB",
        "fit.sm-shared": f"{SM90_SHARED_BYTES_PER_SM // 1024} KiB",
        "fit.programs": f"{fit}",
    }


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
    shapes = (
        f"m = {WGMMA_M}, n from {WGMMA_N[0]} to {WGMMA_N[-1]} in steps of "
        f"{WGMMA_N.step}, k = {wgmma_k(2)}"
    )
    print(f"bf16 wgmma shapes: {shapes}")
    per_step = wgmma_per_k_step(128, 256, 64, 8, 256, 2)
    print(f"128x256x64 tile, 8 warps: {per_step} wgmma per warpgroup per K step")
    print(f"accumulator registers per thread: {accumulator_registers(128, 256, 8)}")
    for tma in (False, True):
        size = pipelined_shared_bytes(128, 256, 64, 3, 2, tma)
        print(f"shared memory, {'TMA' if tma else 'cp.async'} build: {size:,} bytes")
    f = persistent_facts()
    print(
        f"{f['persistent.tiles']} tiles of {f['persistent.tile']} over "
        f"{f['persistent.programs']} programs: {f['persistent.busy']} programs "
        f"compute {f['persistent.most']} tiles and {f['persistent.rest']} compute "
        f"{f['persistent.least']}"
    )
    # facts()['tma.*'] answer the page's exercise 2, so they are not printed here.
