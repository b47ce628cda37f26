"""snippets/layouts_you_choose/drawing.py: the figures draw the model's maps."""

from snippets.layouts_you_choose import drawing, owners


def test_every_element_of_the_tile_is_one_labelled_cell():
    cells = drawing.owner_cells()
    rows, cols = owners.SPECS["blocked"]["shape"]
    assert len(cells) == rows * cols
    assert cells[0] == (0, 0, "0:0", 0)
    assert {warp for *_, warp in cells} == {0, 1}


def test_the_figure_has_one_patch_per_element():
    ax = drawing.owner_figure().axes[0]
    rows, cols = owners.SPECS["blocked"]["shape"]
    assert len(ax.patches) == rows * cols


def test_the_swizzle_puts_chunk_zero_on_a_diagonal():
    plain = {
        (r, slot)
        for r, slot, logical in drawing.swizzle_cells("nvmma-none")
        if logical == 0
    }
    swizzled = {
        (r, slot)
        for r, slot, logical in drawing.swizzle_cells("nvmma-128")
        if logical == 0
    }
    assert plain == {(r, 0) for r in range(8)}
    assert swizzled == {(r, r) for r in range(8)}  # slot = 0 XOR r


def test_the_swizzle_figure_draws_two_panels_of_sixty_four_chunks():
    ax = drawing.swizzle_figure().axes[0]
    assert len(ax.patches) == 2 * 8 * 8
