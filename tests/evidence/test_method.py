"""The benchmark method's rules (evidence/method.py)."""

import pytest

from evidence import ResultFileError, method
from scripts.bench import timing


def test_labels_follow_the_method():
    l2 = 50_000_000
    classify = method.classify
    assert classify("bandwidth", 0.005, 10 * l2, l2) == ["launch-bound"]
    assert classify("bandwidth", 0.02, l2, l2) == ["L2-affected"]
    assert classify("bandwidth", 0.06, 4 * l2, l2) == ["HBM-bound"]
    assert classify("flops", 0.06, 4 * l2, l2) == ["FLOP-bound"]
    assert classify("bandwidth", 0.04, 4 * l2, l2) == ["unclassified"]
    assert classify("bandwidth", 0.06, 3 * l2, l2) == ["unclassified"]
    assert classify("bandwidth", 0.06, 4 * l2, l2, on_gpu=False) == ["CPU host timing"]


def test_plausibility_flags_an_impossible_time():
    # 3 GB at 4 TB/s takes 0.75 ms at least; 0.5 ms is impossible.
    flags = method.plausibility_flags(3_000_000_000, 0.5, 4e12)
    assert flags and flags[0].startswith("impossible")
    assert method.plausibility_flags(3_000_000_000, 0.8, 4e12) == []
    # Within the stated slack of the copy bound is still possible.
    slack = method.METHOD["plausibility_slack"]
    assert method.plausibility_flags(3_000_000_000, 0.75 / slack + 1e-6, 4e12) == []


def test_method_numbers_are_the_ones_the_harness_uses():
    assert method.METHOD["flush_l2_multiple"] == timing.FLUSH_L2_MULTIPLE
    assert all(
        rounds >= method.METHOD["min_rounds"]
        for by_device in method.PROFILE_ROUNDS.values()
        for rounds, _ in by_device.values()
    )
    # The qualification comparison's rounds (5 of 10 on CPU, 5 of 20 on CUDA).
    assert method.rounds_for("compare", "cpu") == (5, 10)
    assert method.rounds_for("compare", "cuda") == (5, 20)
    with pytest.raises(KeyError, match="no profile 'nope'"):
        method.rounds_for("nope", "cpu")


def test_every_profile_has_both_devices():
    assert method.PROFILES == ("tiny", "quick", "full", "compare")
    for by_device in method.PROFILE_ROUNDS.values():
        assert set(by_device) == {"cpu", "cuda"}


def consistent():
    return {
        "kernels": {"k": {}},
        "rows": [
            {"kernel": "k", "timed": True, "p20_ms": 1, "median_ms": 2, "p80_ms": 3},
            {"kernel": "k", "timed": False},
        ],
    }


def test_consistency_passes_a_consistent_file():
    method.check_consistency(consistent(), "f.json")


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda d: d["rows"][0].update(kernel="other"),
            r"f\.json: field 'rows\[0\]\.kernel' names 'other', which 'kernels' "
            "does not list",
        ),
        (
            lambda d: d["rows"][0].update(p20_ms=2.5),
            r"f\.json: fields 'rows\[0\]\.p20_ms' <= 'median_ms' <= 'p80_ms'",
        ),
    ],
    ids=["kernel", "order"],
)
def test_consistency_names_file_and_field(edit, message):
    data = consistent()
    edit(data)
    with pytest.raises(ResultFileError, match=message):
        method.check_consistency(data, "f.json")


def test_flop_kernels_are_judged_by_intensity_not_by_l2():
    l2 = 50 * 2**20
    # matmul 4096^3 in bf16: its operands fit in two L2s, yet it is far above
    # the ridge; long enough, it is FLOP-bound.
    ridge = 206.0
    assert method.classify("flops", 0.2, l2, l2, intensity=1365.0, ridge=ridge) == [
        "FLOP-bound"
    ]
    # Below the ridge a FLOP-metric kernel is judged like a memory-bound one.
    assert method.classify("flops", 0.2, 4 * l2, l2, intensity=50.0, ridge=ridge) == [
        "HBM-bound"
    ]
    # Too short to be judged either way.
    assert method.classify("flops", 0.02, l2, l2, intensity=1365.0, ridge=ridge) == [
        "unclassified"
    ]


def test_unaligned_shapes_carry_their_own_label():
    l2 = 50 * 2**20
    assert method.classify("bandwidth", 0.06, 4 * l2, l2, aligned=False) == [
        "HBM-bound",
        "unaligned",
    ]
