"""The partial-wave decision, recomputed by hand."""

import pytest

from snippets.partial_wave_gemm import decision as d


def test_the_example_leaves_the_last_wave_mostly_empty():
    assert d.facts()["tiles"] == "140"
    assert d.facts()["last"] == "8"
    with pytest.raises(KeyError, match="nope"):
        d.facts()["nope"]


def test_options_by_hand():
    rows = {r["name"]: r for r in d.evaluate()}
    keep = rows["keep 128 × 256"]
    assert keep["rounds"] == 2 and keep["makespan"] == 2 * 128 * 256 * 4096
    small = rows["smaller tile 128 × 128"]
    assert small["rounds"] == 3 and small["relative"] == pytest.approx(0.75)
    split = rows["split-K by 2"]
    assert split["partial_bytes"] == 4480 * 1024 * 4 * 2 * 2
    sk = rows["Stream-K on 132 SMs"]
    # 140 tiles * 64 iterations over 132 SMs: the busiest does ceil(8960/132).
    assert sk["makespan"] == -(-140 * 64 // 132) * 128 * 256 * 64
    assert d.ideal_bytes() == (4480 * 4096 + 4096 * 1024 + 4480 * 1024) * 2


def test_answer_and_wrong_answer():
    assert d.choose()["name"] == "Stream-K on 132 SMs"
    facts = d.facts()
    assert facts["answer.choice"].startswith("Stream-K")
    assert (facts["wrong.rounds"], facts["wrong.last"]) == ("3", "16")
    # The page says: split-K's partial sums exceed the whole GEMM's ideal
    # bytes, and the smaller tile and split-K still end on a partial round.
    rows = {r["name"]: r for r in d.evaluate()}
    assert rows["split-K by 2"]["partial_bytes"] > d.ideal_bytes()
    for name in ("split-K by 2", "smaller tile 128 × 128"):
        assert rows[name]["units"] % d.SMS != 0
    assert d.predicted_ratio() == pytest.approx(68 / 128, abs=0.005)
    assert d.decision_table().count("\n") == 5


def test_the_stream_k_option_names_the_devices_sm_count():
    from kernels.devices import H200

    assert d.STREAM_K == f"Stream-K on {H200.sm_count} SMs"
