"""The element maps as pictures (docs/kernels/below-triton/layouts-you-choose.md).
Evidence kind: pencil model (``owners.py``), checked against the compiler's
linear layouts by the tests, drawn."""

from snippets.layouts_you_choose import owners


def owner_cells(spec_name: str = "blocked", view: dict | None = None) -> list[tuple]:
    """(row, col, label, warp) for every element of a 2-D register layout:
    the label is "lane:register", the warp picks the colour. The model's
    view unless ``view`` (the compiler's, say) is given."""
    view = owners.model(owners.SPECS[spec_name]) if view is None else view
    return [
        (r, c, f"{lane}:{reg}", warp)
        for (r, c), (warp, lane, reg) in sorted(view.items())
    ]


# --8<-- [start:check-drawing]
def drawing_problems(spec_name: str, bases: dict) -> list[str]:
    """Cells where the drawing (the model's) differs from the drawing the
    compiler's bases give; empty when the picture is what the compiler says."""
    drawn = owner_cells(spec_name)
    told = owner_cells(
        spec_name, owners.view_from_bases(owners.SPECS[spec_name], bases)
    )
    bad = [(a, b) for a, b in zip(drawn, told, strict=True) if a != b]
    return [
        f"({a[0]}, {a[1]}): drawn {a[2]} warp {a[3]}, compiler {b[2]} warp {b[3]}"
        for a, b in bad[:5]
    ]
    # --8<-- [end:check-drawing]


def owner_figure(spec_name: str = "blocked"):
    """The blocked layout's tile: each cell names the lane and register that
    hold the element; warp 0 in one colour, warp 1 in the other."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, FILL_ALPHA, INK, SECOND, figure

    cells = owner_cells(spec_name)
    rows = max(r for r, _, _, _ in cells) + 1
    cols = max(c for _, c, _, _ in cells) + 1
    fig = figure(7.0, 0.42 * rows + 0.6)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    for r, c, label, warp in cells:
        colour = ACCENT if warp == 0 else SECOND
        ax.add_patch(
            Rectangle((c, rows - 1 - r), 0.95, 0.9, color=colour, alpha=FILL_ALPHA * 2)
        )
        ax.text(
            c + 0.47,
            rows - 0.55 - r,
            label,
            ha="center",
            va="center",
            color=INK,
            fontsize=8,
        )
    ax.text(
        0,
        rows + 0.25,
        "lane:register; warp 0 left, warp 1 right",
        color=INK,
        fontsize=10,
    )
    ax.set_xlim(-0.2, cols + 0.2)
    ax.set_ylim(-0.2, rows + 0.8)
    return fig


def swizzle_cells(spec_name: str = "nvmma-128") -> list[tuple[int, int, int]]:
    """(row, physical chunk, logical chunk) of the first swizzled row width:
    which 16-byte chunk of the row's data sits in each chunk slot."""
    spec = owners.SPECS[spec_name]
    vec = 128 // spec["bits"]
    width = spec["swizzle"] * 8 // spec["bits"] if spec["swizzle"] else spec["shape"][1]
    view = owners.model(spec)
    out = []
    for (r, c), offset in sorted(view.items()):
        if c % vec == 0 and c < width:
            out.append((r, (offset - r * width) // vec, c // vec))
    return out


def swizzle_figure():
    """Two panels, eight rows of eight 16-byte chunks: where each row's
    chunk k is stored, without a swizzle and with the 128-byte one.
    Logical chunk 0 is marked: one bank group without, eight with."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, FILL_ALPHA, INK, MUTED, figure

    fig = figure(7.0, 2.9)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    for panel, (name, title) in enumerate(
        (("nvmma-none", "no swizzle"), ("nvmma-128", "128-byte swizzle"))
    ):
        x0 = panel * 9.5
        for r, slot, logical in swizzle_cells(name):
            hit = logical == 0
            ax.add_patch(
                Rectangle(
                    (x0 + slot, 7 - r),
                    0.95,
                    0.9,
                    color=ACCENT if hit else MUTED,
                    alpha=1 if hit else FILL_ALPHA,
                )
            )
            ax.text(
                x0 + slot + 0.47,
                7.45 - r,
                str(logical),
                ha="center",
                va="center",
                color=INK,
                fontsize=8,
            )
        ax.text(x0, 8.3, title, color=INK, fontsize=9)
    # One key for both panels, under them: a title this long ran off the
    # right edge of the second panel.
    ax.text(
        8.85,
        -0.75,
        "rows r down, chunk slots across; each number is the logical chunk",
        ha="center",
        color=INK,
        fontsize=8,
    )
    ax.set_xlim(-0.3, 18)
    ax.set_ylim(-1.3, 9)
    return fig
