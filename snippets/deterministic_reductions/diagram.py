"""The two-stage reduction tree, drawn from the same halving rule as orders.py.

Shown on docs/kernels/memory-bound/deterministic-reductions.md. Evidence
kind: CPU model; the picture is the order of additions, fixed by position.
"""

from snippets.lib.diagrams import ACCENT, FONT_SIZE, INK, MUTED, SECOND, figure


def tree_levels(n: int, block: int) -> list[list[tuple[int, int]]]:
    """Node list per level, bottom up. A node is (stage, index); each level
    after the first halves each block, as tree_sum does (the picture draws
    each pair side by side), and a stage's last level feeds the next."""
    if n < 1 or block < 2:
        raise ValueError("n must be >= 1 and block >= 2")
    levels = [[(0, i) for i in range(n)]]
    stage, size = 0, n
    while size > 1:
        blocks = -(-size // block)
        width = min(size, block)
        while width > 1:
            width = -(-width // 2)
            levels.append([(stage, i) for i in range(blocks * width)])
        stage += 1
        size = blocks
    return levels


def tree_figure(n: int = 16, block: int = 4):
    """Circles for values and partial sums, lines for additions; stage one
    in the accent colour, the second stage in the second colour."""
    levels = tree_levels(n, block)
    fig = figure(6.5, 3.2)
    ax = fig.add_subplot()
    ax.set_axis_off()
    positions = []
    for depth, level in enumerate(levels):
        count = len(level)
        row = []
        for k, (stage, _) in enumerate(level):
            x = (k + 0.5) * n / count
            colour = MUTED if depth == 0 else (ACCENT if stage == 0 else SECOND)
            ax.scatter([x], [depth], s=120, color=colour, zorder=3)
            row.append(x)
        positions.append(row)
    for depth in range(1, len(levels)):
        below, here = positions[depth - 1], positions[depth]
        group = len(below) // len(here) if len(below) >= len(here) else 1
        for k, x in enumerate(here):
            for j in range(k * group, min((k + 1) * group, len(below))):
                ax.plot([below[j], x], [depth - 1, depth], color=INK, linewidth=0.8)
    ax.text(
        0,
        len(levels) - 0.6,
        f"{n} values, blocks of {block}",
        color=INK,
        fontsize=FONT_SIZE,
    )
    ax.set_ylim(-0.5, len(levels))
    return fig


if __name__ == "__main__":
    print("nodes per level:", [len(level) for level in tree_levels(16, 4)])
