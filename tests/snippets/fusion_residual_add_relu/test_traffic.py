import pytest

from kernels import residual_add_relu as kernel
from snippets.fusion_residual_add_relu import traffic as t


def test_bytes_count_passes_by_hand():
    # eager: (read x, read r, write tmp) + (read tmp, write out)
    assert t.unfused_bytes(10, 2) == (3 + 2) * 10 * 2
    assert t.fused_bytes(10, 2) == kernel.bytes_moved(10, 1, 2)


def test_large_sizes_approach_five_thirds_and_tiny_sizes_two():
    big = t.model_speedup(1 << 34, 2, 4.0)
    assert big == pytest.approx(5 / 3, rel=1e-3)
    assert t.model_speedup(1, 2, 4.0) == pytest.approx(2.0, rel=1e-3)
    # between the limits, monotone falling with size
    sizes = [1 << p for p in range(10, 31)]
    speedups = [t.model_speedup(n, 2, 4.0) for n in sizes]
    assert speedups == sorted(speedups, reverse=True)


def test_l2_resident_intermediate_shrinks_the_gain():
    n = 1 << 22
    assert t.intermediate_fits_l2(n, 2)
    warm = t.model_speedup(n, 2, 4.0, tmp_in_l2=True)
    assert 1.0 < warm < t.model_speedup(n, 2, 4.0)
    # no launch cost and tmp on chip: the same bytes, no gain but launches
    assert t.model_speedup(n, 2, 0.0, tmp_in_l2=True) == pytest.approx(1.0)


def test_l2_fit_is_the_h200_figure():
    assert t.intermediate_fits_l2(50 * 2**20, 1)
    assert not t.intermediate_fits_l2(50 * 2**20 + 1, 1)


def test_crossover_balances_one_launch_against_fused_bytes():
    n = t.crossover_numel(2, 4.0)
    hbm_us = t.fused_bytes(n, 2) / 4.8e12 * 1e6
    assert hbm_us == pytest.approx(4.0, rel=1e-5)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="numel"):
        t.model_time_us(0, 2, fused=True, launch_us=1.0)
    with pytest.raises(ValueError, match="launch_us"):
        t.model_time_us(1, 2, fused=True, launch_us=-1.0)


def test_texts_and_table():
    assert t.facts()["ratio"] == "1.67"
    assert t.facts()["tmp-fits"] == "does not fit"  # 64 MiB > 50 MiB
    table = t.regime_table()
    assert table.count("\n") == len(t.SIZES) + 1
    assert "—" in table  # sizes past L2 have no L2 column


def test_exercise_answers_by_hand():
    a = t.exercise_answer(1 << 22, 4, 4.0)
    fused = 4.0 + 3 * (1 << 22) * 4 / 4.8e12 * 1e6
    cold = 8.0 + 5 * (1 << 22) * 4 / 4.8e12 * 1e6
    warm = 8.0 + 3 * (1 << 22) * 4 / 4.8e12 * 1e6
    assert a["tmp_in_hbm"] == pytest.approx(cold / fused)
    assert a["tmp_in_l2"] == pytest.approx(warm / fused)
    assert a["fits_l2"]
    facts = t.facts()
    assert facts["exercise.fp32-4m.fits"] == "fits"
    assert facts["exercise.bf16-tiny.numel"] == "16,384"
    for name in t.EXERCISES:
        assert facts[f"exercise.{name}.hbm"].endswith("×")
