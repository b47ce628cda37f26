"""Which program owns which element: the Triton on-ramp's pencil model
(docs/kernels/where-time-goes/triton-on-ramp.md). Plain Python, no Triton:
the same arithmetic the kernel's first two lines do, for any length and
block size, so the lesson's numbers come from here.
"""

from __future__ import annotations

from snippets.lib.diagrams import ACCENT, FONT_SIZE, INK, MUTED, SECOND, figure


# --8<-- [start:grid]
def programs(n: int, block: int) -> int:
    """The grid: one program per block, rounded up so the tail has one
    (what ``triton.cdiv(n, block)`` computes)."""
    if n < 1 or block < 1:
        raise ValueError(f"n and block must be at least 1, got {n} and {block}")
    return -(-n // block)


def owned(pid: int, n: int, block: int) -> range:
    """The elements program ``pid`` loads and stores: its block, cut at n
    (the lanes past n are the ones the mask turns off)."""
    start = pid * block
    return range(start, min(start + block, n))


def masked_off(n: int, block: int) -> int:
    """Lanes of the last program that the mask turns off."""
    return programs(n, block) * block - n


# --8<-- [end:grid]


def unwritten_with_floor_grid(n: int, block: int) -> range:
    """Elements no program writes when the grid is n // block (rounded
    down): the tail the floor division drops."""
    covered = (n // block) * block
    return range(covered, n)


WORKED = {"n": 1000, "block": 128}
EXERCISE = {"n": 4099, "block": 256, "pid": 7}


def facts() -> dict[str, str]:
    n, block = WORKED["n"], WORKED["block"]
    e = EXERCISE
    gone = unwritten_with_floor_grid(e["n"], e["block"])
    mine = owned(e["pid"], e["n"], e["block"])
    return {
        "worked.n": f"{n:,}",
        "worked.block": str(block),
        "worked.programs": str(programs(n, block)),
        "worked.last_start": f"{owned(programs(n, block) - 1, n, block).start:,}",
        "worked.masked_off": str(masked_off(n, block)),
        "exercise.n": f"{e['n']:,}",
        "exercise.block": str(e["block"]),
        "exercise.pid": str(e["pid"]),
        "exercise.programs": str(programs(e["n"], e["block"])),
        "exercise.owned": f"{mine.start:,} to {mine.stop - 1:,}",
        "exercise.masked_off": str(masked_off(e["n"], e["block"])),
        "exercise.floor_programs": str(e["n"] // e["block"]),
        "exercise.unwritten": f"{gone.start:,} to {gone.stop - 1:,}",
        "exercise.unwritten_count": str(len(gone)),
    }


def blocks_figure(n: int = 1000, block: int = 128):
    """Each program's block along the array, the last one cut by the mask."""
    count = programs(n, block)
    fig = figure(6.8, 1.9)
    ax = fig.subplots()
    for pid in range(count):
        mine = owned(pid, n, block)
        color = ACCENT if pid % 2 == 0 else SECOND
        ax.barh(0, len(mine), left=mine.start, height=0.6, color=color, alpha=0.8)
        ax.text(mine.start + len(mine) / 2, 0, f"pid {pid}", ha="center",
                va="center", color=INK, fontsize=FONT_SIZE - 1)  # fmt: skip
    off = masked_off(n, block)
    ax.barh(0, off, left=n, height=0.6, color=MUTED, alpha=0.35, hatch="//")
    ax.text(n + off / 2, 0.55, f"{off} lanes\nmasked off", ha="center",
            va="bottom", color=INK, fontsize=FONT_SIZE - 1)  # fmt: skip
    ax.set_xlim(0, count * block)
    ax.set_ylim(-0.6, 1.3)
    ax.set_yticks([])
    ax.set_xlabel(f"element index (n = {n}, BLOCK = {block})", color=INK,
                  fontsize=FONT_SIZE)  # fmt: skip
    ax.tick_params(colors=INK, labelsize=FONT_SIZE - 1)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(INK)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    n, block = WORKED["n"], WORKED["block"]
    print(f"n = {n}, BLOCK = {block}: {programs(n, block)} programs")
    for pid in range(programs(n, block)):
        mine = owned(pid, n, block)
        print(f"  program {pid}: elements {mine.start}..{mine.stop - 1}")
    print(f"lanes the mask turns off in the last program: {masked_off(n, block)}")
