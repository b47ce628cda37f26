"""Layouts, composition and the thread layout, checked by brute force."""

import itertools

import pytest

from snippets.layouts_strides_offsets import layouts as L
from snippets.the_kernel_that_actually_runs.stages import artifact_build


def test_offsets_and_transposed_view_keep_storage():
    m = L.MATRIX
    view = L.transposed_view(m)
    for i, j in itertools.product(range(4), range(8)):
        assert m(i, j) == i * 8 + j == view(j, i)
    assert L.trace(m, (2, 5)).endswith("2*8 + 5*1 = 21")
    assert str(m) == "(4,8):(8,1)" and m.coord(9) == (1, 2)


@pytest.mark.parametrize(
    "a,b",
    [
        (L.Layout((4, 8), (8, 1)), L.Layout((8, 4), (4, 1))),
        (L.Layout((4, 8), (1, 4)), L.Layout((2, 4), (1, 8))),
        (L.Layout((6, 2), (1, 6)), L.Layout((3, 2), (2, 6))),
        (L.Layout((4, 8), (8, 1)), L.Layout((4, 2), (0, 16))),
    ],
    ids=["transpose", "col-major-tile", "sixes", "broadcast"],
)
def test_composition_is_function_composition(a, b):
    parts = L.compose(a, b)
    for coord in itertools.product(*(range(s) for s in b.shape)):
        assert sum(p(c) for p, c in zip(parts, coord, strict=False)) == a(b(*coord))


def test_composition_refuses_indivisible_strides():
    with pytest.raises(ValueError, match="does not divide"):
        L.compose_mode(L.Layout((6, 4), (1, 6)), 2, 4)
    with pytest.raises(ValueError, match="shape"):
        L.Layout((0, 2), (1, 1))
    with pytest.raises(ValueError, match="outside shape"):
        L.MATRIX(4, 0)


def test_thread_layout_predicts_the_sass_load_count():
    for which, build in (("aligned", "fp32-aligned"), ("unaligned", "fp32-unaligned")):
        tv = L.ttgir_layout(which)
        assert sorted(tv(i) for i in range(tv.size)) == list(range(1024))
        sass = artifact_build(build)["sass_opcodes"]
        loads = sum(n for op, n in sass.items() if op.startswith("LDG"))
        assert loads == 2 * L.loads_per_input(tv)  # two inputs: x and residual
    assert "20–23; 532–535" in L.fmt_lane("aligned")


def test_page_values_and_figure():
    assert L.facts()["trace"].startswith("`(4,8):(8,1) at (2, 5)")
    assert L.facts()["broadcast"] == "`(4,8):(0,1)`"
    assert L.composition_example().endswith("`(8:1, 4:8)`")
    assert L.offset_grid_table().count("\n") == 5
    with pytest.raises(KeyError, match="x"):
        L.facts()["x"]
    fig = L.offset_map_figure()
    ax = fig.axes[0]
    assert len(ax.patches) == 32 + 32  # grid cells plus storage cells
    assert sum(t.get_text() == "21" for t in ax.texts) == 1
