from snippets.compute_sanitizer import diagram
from snippets.compute_sanitizer.findings import BLOCK, ITEMSIZE, N


def test_spans_follow_the_planted_case():
    tensor, overrun = diagram.spans(False)
    assert tensor[2] == N * ITEMSIZE
    assert overrun[2] - overrun[1] == (4 * BLOCK - N) * ITEMSIZE
    assert len(diagram.spans(True)) == 3


def test_figure_draws_both_allocators_and_their_boundaries():
    ax = diagram.boundary_figure().axes[0]
    assert len(ax.patches) == 3 + 2
    assert len(ax.lines) == 2
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "silent" in texts and "reported" in texts
