"""The committed IR excerpts and the artifact lines each stage shows."""

import pytest

from snippets.the_kernel_that_actually_runs import stages


def test_excerpts_were_made_from_the_current_kernel():
    assert stages.excerpts_fresh(), (
        "kernels/residual_add_relu.py changed: run "
        "`python -m snippets.the_kernel_that_actually_runs.stages --write`"
    )


def test_ttir_has_no_layout_and_ttgir_has_one():
    for which in stages.BUILDS:
        assert "#blocked" not in stages.stage_line("ttir", which)
        assert "sizePerThread" in stages.stage_line("ttgir", which)
    assert "sizePerThread = [4]" in stages.stage_line("ttgir", "aligned")
    assert "sizePerThread = [1]" in stages.stage_line("ttgir", "unaligned")


def test_ptx_and_sass_lines_agree_on_the_width():
    assert "ld.global.v4" in stages.stage_line("ptx", "aligned")
    assert "LDG.E.128" in stages.stage_line("sass", "aligned")
    assert "v4" not in stages.stage_line("ptx", "unaligned")
    assert ".128" not in stages.stage_line("sass", "unaligned")


def test_excerpt_strips_locations_and_fails_loudly():
    asm = {
        "ttir": "  %x = tt.load %p : tensor<4x!tt.ptr<f32>> loc(#loc3)\n",
        "ttgir": "#blocked = #ttg.blocked<{sizePerThread = [4]}>\n",
    }
    assert stages.excerpt(asm)["ttir"] == "%x = tt.load %p : tensor<4x!tt.ptr<f32>>"
    with pytest.raises(ValueError, match="matches no line"):
        stages.first_line("nothing", "tt.load")
    with pytest.raises(ValueError, match="stage"):
        stages.stage_line("llir")
    with pytest.raises(ValueError, match="which"):
        stages.stage_line("ptx", "other")


def test_tables_and_block():
    assert stages.stage_table().count("\n") == 6
    block = stages.stage_block()
    assert block.startswith("```text") and "// SASS" in block


def test_the_hash_covers_exactly_the_kernel():
    text = stages.kernel_source()
    assert text.startswith("@triton.jit\ndef residual_add_relu_v1_kernel(")
    assert "tl.store(" in text and "def validate" not in text
