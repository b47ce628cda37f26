"""Occupancy read from the committed artifacts."""

import pytest

from snippets.threads_blocks_warps_waves import kernel_occupancy as ko


def test_every_artifact_build_is_in_the_table():
    table = ko.occupancy_table()
    builds = ko.load_builds()
    assert len(builds) >= 7
    assert table.count("\n") == len(builds) + 1
    assert "| `matmul` | `bf16-aligned` | 8 | 206 | 147,456 B | 1 |" in table


def test_missing_artifacts_say_so(tmp_path):
    assert "No compiled artifacts yet" in ko.occupancy_table(tmp_path)


def test_build_fact_and_errors():
    facts = ko.facts()
    assert facts["matmul.bf16-aligned.blocks"] == "1"
    # 206 registers: 6,656 per warp; 16,384 per sub-partition holds 2, so
    # 8 warps per SM (not 65,536 // 6,656 = 9: finding F15).
    assert facts["matmul.bf16-aligned.register-warps"] == "8"
    with pytest.raises(ValueError, match="no build"):
        ko.find_build("matmul", "nope")


def test_balancing_beats_a_faster_tile():
    now, tuned = ko.tail_cost(140, 1, 1.1)
    assert now == 2.0 and tuned == pytest.approx(2 / 1.1)
    assert ko.balanced_time(140, 1) == pytest.approx(140 / 132)
    assert ko.balanced_time(140, 1) < tuned
    assert ko.facts()["balance.blocks"] == "140"


def test_example_waves_uses_the_gemm_example():
    assert ko.example_waves().startswith("162 blocks over 132 slots: 2 wave(s)")
