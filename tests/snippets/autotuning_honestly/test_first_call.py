"""The first-call model replays Triton's do_bench arithmetic; noise makes
close configs win at random."""

import pytest

from kernels.devices import H200
from snippets.autotuning_honestly import first_call as fc


def test_the_constants_are_the_installed_tritons():
    import inspect

    import triton.testing
    from triton.runtime import autotuner

    defaults = inspect.signature(triton.testing.do_bench).parameters
    assert defaults["warmup"].default == fc.WARMUP_MS
    assert defaults["rep"].default == fc.REP_MS
    source = inspect.getsource(autotuner.Autotuner._bench)
    assert (
        f"quantiles={fc.QUANTILES}"
        in source.replace(" ", "").replace("quantiles=", "quantiles=")
        or "quantiles=(0.5, 0.2, 0.8)" in source
    )
    assert f"range({fc.ESTIMATE_CALLS})" in inspect.getsource(triton.testing.do_bench)
    init = inspect.getsource(autotuner.Autotuner.__init__)
    assert "deprecated" in init and "cache_results" in init  # the page says both
    from triton import knobs

    assert knobs.autotuning_knobs.__dict__["cache"].key == "TRITON_CACHE_AUTOTUNING"
    assert knobs.autotuning_knobs.__dict__["print"].key == "TRITON_PRINT_AUTOTUNING"


def test_the_alignment_rule_is_the_installed_tritons():
    import inspect

    from triton.backends.compiler import BaseBackend

    for rule in (
        BaseBackend.get_int_specialization,
        BaseBackend.get_tensor_specialization,
    ):
        assert f"% {fc.ALIGNMENT} == 0" in inspect.getsource(rule)


def test_bench_time_is_about_warmup_plus_rep_for_a_short_kernel():
    ms = fc.bench_ms(0.01)
    assert fc.REP_MS < ms < fc.WARMUP_MS + fc.REP_MS + 10
    # a kernel longer than the budget still runs at least once per phase
    assert fc.bench_ms(500.0) == pytest.approx(
        500 + 5 * 500.056 + 500 + 500.056, rel=1e-3
    )


def test_bench_by_hand():
    flush = fc.FLUSH_BYTES / H200.hbm_bytes_per_s * 1e3
    kernel = 1.0
    estimate = flush + kernel
    expected = (
        kernel
        + 5 * estimate
        + int(25 / estimate) * kernel
        + int(100 / estimate) * estimate
    )
    assert fc.bench_ms(kernel) == pytest.approx(expected)


def test_first_call_grows_linearly_with_configs():
    one = fc.first_call_s(1, 0.01)
    assert fc.first_call_s(72, 0.01) == pytest.approx(72 * one)
    assert fc.first_call_s(8, 0.01, compile_s=0) < fc.first_call_s(8, 0.01)


def test_a_sweep_recompiles_only_per_specialisation():
    tuned_once = fc.sweep_s(1, 10, 0.01)
    assert fc.sweep_s(4, 10, 0.01) < 4 * tuned_once  # compiles are cached
    assert fc.sweep_s(4, 10, 0.01, specialisations=2) > fc.sweep_s(4, 10, 0.01)


def test_noise_makes_close_configs_win_at_random():
    quiet = fc.win_shares([1.0, 1.01, 1.02], 0.0001)
    assert quiet == [1.0, 0.0, 0.0]
    noisy = fc.win_shares([1.0, 1.01, 1.02], 0.03)
    assert 0.2 < noisy[0] < 0.7 and noisy[1] > 0.1
    assert sum(noisy) == pytest.approx(1.0)


def test_l2_example():
    assert fc.fits_in_l2(H200.l2_bytes) and not fc.fits_in_l2(H200.l2_bytes + 1)
    assert fc.facts()["square.fits"] == "fits"


def test_exercise_by_hand():
    ex = fc.exercise()
    assert ex["configs"] == 3 * 3 * 2 * 2 * 2
    per_config = fc.COMPILE_S + fc.bench_ms(0.5) / 1e3
    assert ex["full_s"] == pytest.approx(72 * per_config)
    assert ex["pruned_s"] == pytest.approx(8 * per_config)
    assert ex["sweep_s"] == pytest.approx(
        72 * fc.COMPILE_S + 12 * 72 * fc.bench_ms(0.5) / 1e3
    )


def test_tables_facts_and_figure():
    assert fc.first_call_table().startswith("| configs")
    assert fc.noise_table().startswith("| run-to-run")
    assert all(isinstance(v, str) and v for v in fc.facts().values())
    assert fc.first_call_figure() is not None
