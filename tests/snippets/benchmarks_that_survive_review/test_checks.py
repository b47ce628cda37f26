import math

from kernels.devices import H200
from snippets.benchmarks_that_survive_review import checks


def test_naive_check_passes_nan_strict_does_not():
    nan = float("nan")
    assert checks.naive_close([nan], [1.0], 1e-3)
    assert not checks.strict_close([nan], [1.0], 1e-3)
    assert checks.strict_close([nan, 1.0], [nan, 1.0005], 1e-3)
    assert not checks.strict_close([1.0], [nan], 1e-3)
    assert not checks.strict_close([math.inf], [1.0], 1e-3)


def test_impossible_rows():
    hbm = H200.hbm_bytes_per_s
    assert checks.impossible(10**9, 10**9 / (0.5 * hbm), 0.9 * hbm) == []
    assert len(checks.impossible(10**9, 10**9 / (1.2 * hbm), 0.9 * hbm)) == 2
    assert checks.fmt_impossible(0.8) == "plausible"
    assert "datasheet" in checks.fmt_impossible(1.3)
    assert checks.fmt_impossible(0.95) == (
        "past the same run's measured copy by more than the slack"
    )
    # A read-heavy kernel a few percent past the copy is within the slack.
    assert checks.impossible(10**9, 10**9 / (0.93 * hbm), 0.9 * hbm) == []
    assert [checks.fmt_share(f) for f in (0.8, 0.95, 1.3)] == ["80%", "95%", "130%"]
    assert checks.fmt_share() == "90%"
    assert checks.fmt_nan_case() == "naive check: pass; strict check: fail"
