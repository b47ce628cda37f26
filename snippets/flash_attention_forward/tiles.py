"""Which key tiles each query tile visits, with and without masks.

Shown on docs/kernels/attention/flash-attention-forward.md. Replays the
index arithmetic of kernels/attention/versions.py's `attention_v1_kernel` in plain
Python: a query tile of BLOCK_M rows first walks the key steps that need no
mask (`0 .. free_end`), then the steps that do (`free_end .. stop`). A CPU
model of the schedule: the test checks that every (query, key) pair the
mask keeps is visited exactly once.
"""

from __future__ import annotations

from evidence.tables import markdown_table

#: The kernels' 16-bit tiles (kernels/attention/versions.py): version 1's
#: config_for at D = 128 and version 2's config_v2_for.
V1_TILES = (128, 64)
V2_TILES = (128, 128)
BLOCK_M, BLOCK_N = V2_TILES


# --8<-- [start:key-ranges]
def key_ranges(
    tile_m: int, S: int, causal: bool, block_m: int = BLOCK_M, block_n: int = BLOCK_N
):
    """(free_end, stop) for one query tile, as the kernel computes them:
    keys 0..free_end need no mask, keys free_end..stop do."""
    if causal:
        free_end = tile_m * block_m  # every query of the tile sees these keys
        stop = min((tile_m + 1) * block_m, S)  # the diagonal block
    else:
        free_end = S // block_n * block_n  # whole key steps inside S
        stop = S
    return free_end, stop


def key_steps(
    tile_m: int, S: int, causal: bool, block_m: int = BLOCK_M, block_n: int = BLOCK_N
):
    """The (first key, masked) steps one query tile takes."""
    free_end, stop = key_ranges(tile_m, S, causal, block_m, block_n)
    steps = [(n0, False) for n0 in range(0, free_end, block_n)]
    return steps + [(n0, True) for n0 in range(free_end, stop, block_n)]
    # --8<-- [end:key-ranges]


def visited_pairs(S: int, causal: bool, block_m: int, block_n: int) -> list:
    """Every (query, key) pair the kernel keeps, in visiting order."""
    pairs = []
    for tile_m in range(-(-S // block_m)):
        queries = range(tile_m * block_m, min((tile_m + 1) * block_m, S))
        for n0, masked in key_steps(tile_m, S, causal, block_m, block_n):
            for q in queries:
                for k in range(n0, n0 + block_n):
                    inside = k < S and (not causal or k <= q)
                    if inside or not masked and k < S:
                        pairs.append((q, k))
    return pairs


def step_counts(
    S: int, causal: bool, block_m: int = BLOCK_M, block_n: int = BLOCK_N
) -> dict:
    """Mask-free and masked key steps over all query tiles of one head."""
    free = masked = 0
    for tile_m in range(-(-S // block_m)):
        for _, is_masked in key_steps(tile_m, S, causal, block_m, block_n):
            masked += is_masked
            free += not is_masked
    return {"free": free, "masked": masked, "total": free + masked}


def steps_table(lengths=(1000, 4096, 4097)) -> str:
    """Markdown: steps per head and their masked share, per version's tiles."""
    rows = []
    for S in lengths:
        for causal in (False, True):
            for name, (bm, bn) in (("v1", V1_TILES), ("v2", V2_TILES)):
                c = step_counts(S, causal, bm, bn)
                rows.append(
                    (
                        f"{S:,}",
                        "causal" if causal else "full",
                        f"{name}: {bm} × {bn}",
                        f"{c['free']:,}",
                        f"{c['masked']:,}",
                        f"{c['masked'] / c['total']:.1%}",
                    )
                )
    header = [
        "S",
        "attention",
        "tiles",
        "mask-free steps",
        "masked steps",
        "masked share",
    ]
    return markdown_table(header, rows, "rllrrr")


# --8<-- [start:heavy-first]
def causal_makespan(
    S: int,
    heads: int,
    slots: int,
    heavy_first: bool,
    block_m: int = BLOCK_M,
    block_n: int = BLOCK_N,
) -> int:
    """Key steps until the last program of a causal launch ends, when
    `slots` programs run at once and each free slot takes the next program
    in launch order (one program per query tile of each head). Query tile
    t does about t + 1 tiles' worth of steps; heavy_first reverses each
    head's tiles, as attention_v2_kernel does."""
    tiles = -(-S // block_m)
    cost = [len(key_steps(t, S, True, block_m, block_n)) for t in range(tiles)]
    order = cost[::-1] if heavy_first else cost
    free_at = [0] * slots  # when each slot is next free
    for _ in range(heads):
        for steps in order:
            slot = free_at.index(min(free_at))
            free_at[slot] += steps
    return max(free_at)
    # --8<-- [end:heavy-first]


def tile_map_figure(
    S: int = 640, causal: bool = True, block_m: int = BLOCK_M, block_n: int = BLOCK_N
):
    """Query tiles down, key steps across: each cell a step the kernel
    takes, mask-free or masked; blank cells are steps it skips."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, INK, MUTED, figure

    tiles_m, tiles_n = -(-S // block_m), -(-S // block_n)
    fig = figure(6.0, 3.4)
    ax = fig.add_axes((0.12, 0.14, 0.62, 0.78))
    ax.set_xlim(0, tiles_n)
    ax.set_ylim(tiles_m, 0)
    for tile_m in range(tiles_m):
        for n0, masked in key_steps(tile_m, S, causal, block_m, block_n):
            colour = ACCENT if masked else MUTED
            ax.add_patch(
                Rectangle(
                    (n0 // block_n, tile_m),
                    1,
                    1,
                    facecolor=colour,
                    edgecolor=INK,
                    linewidth=0.6,
                )
            )
    ax.set_xlabel(f"key step ({block_n} keys each)", color=INK)
    ax.set_ylabel(f"query tile ({block_m})", color=INK)
    ax.tick_params(colors=INK)
    for label, colour, y in (("mask-free", MUTED, 0.8), ("masked", ACCENT, 0.6)):
        fig.patches.append(
            Rectangle(
                (0.78, y),
                0.03,
                0.05,
                facecolor=colour,
                edgecolor=INK,
                transform=fig.transFigure,
            )
        )
        fig.text(0.83, y + 0.01, label, color=INK)
    return fig


if __name__ == "__main__":
    print(steps_table())


EXERCISE_S = 1000
#: The two causal launches the page compares: (S, heads, slots).
HEAVY_CASES = {"many": (4096, 64, 132), "few": (16384, 4, 132)}


def heavy_first_facts(name: str, S: int, heads: int, slots: int) -> dict:
    """The last program's end in ascending and heavy-first order, and the
    even split, for one causal launch."""
    tiles = -(-S // BLOCK_M)
    total = heads * sum(len(key_steps(t, S, True)) for t in range(tiles))
    return {
        f"{name}.heads": f"{heads}",
        f"{name}.tiles": f"{tiles}",
        f"{name}.slots": f"{slots}",
        f"{name}.ascending": f"{causal_makespan(S, heads, slots, False):,}",
        f"{name}.heavy": f"{causal_makespan(S, heads, slots, True):,}",
        f"{name}.ideal": f"{-(-total // slots):,}",
    }


def facts() -> dict[str, str]:
    """Every value the page states about the key steps, by name."""
    v1, v2 = V1_TILES[1], V2_TILES[1]
    bm, bn = V1_TILES
    c = step_counts(EXERCISE_S, True, bm, bn)
    out = {
        "v1-block-n": f"{v1}",
        "v2-block-n": f"{v2}",
        "block-ratio": f"{v2 / v1:g}×",
        "exercise.S": f"{EXERCISE_S:,}",
        "exercise.tiles": f"{-(-EXERCISE_S // bm)}",
        "exercise.bm": f"{bm}",
        "exercise.bn": f"{bn}",
        "exercise.total": f"{c['total']}",
        "exercise.free": f"{c['free']}",
        "exercise.masked": f"{c['masked']}",
        "exercise.diagonal": f"{bm // bn}",
    }
    for name, case in HEAVY_CASES.items():
        out.update(heavy_first_facts(name, *case))
    return out
