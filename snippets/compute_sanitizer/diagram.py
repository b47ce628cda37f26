"""Where memcheck's allocation boundary lies, with and without PyTorch's cache.

Shown on docs/kernels/correctness/compute-sanitizer.md. Evidence kind:
pencil model of the allocator (PyTorch documentation, "CUDA semantics",
memory management): with caching, small tensors are carved out of a larger
segment that CUDA allocated once; memcheck only knows the segment.
"""

from snippets.compute_sanitizer.findings import BLOCK, ITEMSIZE, N
from snippets.lib.diagrams import (
    ACCENT,
    FILL_ALPHA,
    FONT_SIZE,
    INK,
    MUTED,
    SECOND,
    figure,
)


def spans(caching: bool) -> list[tuple[str, float, float]]:
    """(label, start, end) in bytes, drawn left to right: the tensor, the
    overrun, and the bytes memcheck counts as allocated beyond them."""
    tensor = N * ITEMSIZE
    overrun = (-(-N // BLOCK) * BLOCK - N) * ITEMSIZE
    out = [("tensor", 0, tensor), ("read past the end", tensor, tensor + overrun)]
    if caching:
        out.append(("rest of the segment", tensor + overrun, 2 * tensor))
    return out


def boundary_figure():
    """Two rows: caching on (the overrun is inside the allocation memcheck
    knows) and off (the overrun crosses the boundary)."""
    from matplotlib.patches import Rectangle

    fig = figure(6.5, 2.4)
    ax = fig.add_subplot()
    ax.set_axis_off()
    colours = {"tensor": ACCENT, "read past the end": SECOND}
    rows = (
        (True, "caching allocator (default)"),
        (False, "PYTORCH_NO_CUDA_MEMORY_CACHING=1"),
    )
    for y, (caching, title) in zip((1.4, 0.0), rows, strict=True):
        for label, start, stop in spans(caching):
            colour = colours.get(label, MUTED)
            alpha = 1.0 if label in colours else FILL_ALPHA
            ax.add_patch(
                Rectangle((start, y), stop - start, 0.6, color=colour, alpha=alpha)
            )
        allocated = spans(caching)[-1][2] if caching else spans(caching)[0][2]
        ax.plot([allocated, allocated], [y - 0.1, y + 0.7], color=INK, linewidth=2)
        verdict = "memcheck: inside, silent" if caching else "memcheck: reported"
        ax.text(0, y + 0.7, f"{title}: {verdict}", color=INK, fontsize=FONT_SIZE)
    ax.set_xlim(-100, 2 * N * ITEMSIZE + 100)
    ax.set_ylim(-0.3, 2.5)
    return fig


if __name__ == "__main__":
    for caching in (True, False):
        print("caching" if caching else "no caching", spans(caching))
