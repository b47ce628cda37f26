"""snippets/kernel_index/versions.py: the index page's tables, from the
committed artifacts."""

import pytest

from snippets.kernel_index import versions


def test_every_version_has_a_row_with_three_targets():
    rows = versions.version_rows()
    functions = {(r["kernel"], r["function"]) for r in rows}
    assert ("matmul", "matmul_v3_kernel") in functions
    assert ("scan", "scan_v3_kernel") in functions
    assert ("attention", "attention_v4_kernel") in functions
    assert all(r[t] != "not built" for r in rows for t in versions.TARGETS)


def test_goals_apply_to_the_launchers_version_not_the_new_ones():
    rows = {(r["kernel"], r["function"]): r["goal"] for r in versions.version_rows()}
    assert rows[("matmul", "matmul_v2_kernel")]
    assert not rows[("matmul", "matmul_v3_kernel")]
    assert not rows[("attention", "attention_v4_kernel")]
    assert "not yet measured" in versions.goals_table()


@pytest.mark.parametrize(
    "opcodes, family",
    [
        ({"HGMMA.64x256x16.F32.BF16": 4}, "wgmma (HGMMA)"),
        ({"UTCQMMA": 4, "UTCHMMA": 1}, "tcgen05 fp8 (UTCQMMA)"),
        ({"HMMA.16816.F32.BF16": 8}, "mma.sync (HMMA)"),
        ({"FFMA": 100}, "no tensor cores"),
    ],
)
def test_matrix_path_names_the_family(opcodes, family):
    assert versions.matrix_path(opcodes) == family


def test_a_build_over_the_block_limit_is_flagged():
    # Known-broken input: 100 KiB asked of an sm_120a block (99 KiB allowed).
    record = {
        "registers": 128,
        "shared_bytes": 100 * 1024,
        "spill_store_bytes": 0,
        "sass_opcodes": {},
    }
    assert "over the 99 KiB a block may use" in versions.summary(
        record, "sm_120a", "bandwidth"
    )
    assert "over" not in versions.summary(record, "sm_90a", "bandwidth")


def test_facts_are_strings_the_page_can_show():
    facts = versions.facts()
    assert facts["targets"] == "sm_90a, sm_100a, sm_120a"
    assert facts["sm120_over_limit"] == "0"  # matmul takes its own sm_120a tiles
    assert facts["sm100_tensor_memory_kib"] == "256"


def test_the_gluon_table_shows_each_targets_kernel_and_no_measurement():
    table = versions.gluon_table()
    assert "`matmul_gluon_sm90_kernel`: wgmma (HGMMA)" in table
    assert "`matmul_gluon_sm100_kernel`: tcgen05 (UTCHMMA)" in table
    assert "no Gluon kernel" in table  # sm_120a has none
    assert table.count("not yet measured") == len(versions.GLUON)
