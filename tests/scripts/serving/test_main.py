"""The load generator's --dry-run: the smoke test a GPU script runs first."""

import pytest

from evidence import read
from scripts.serving import loadgen
from scripts.serving.__main__ import main


def test_dry_run_writes_a_valid_cpu_result(tmp_path, capsys):
    assert main(["--dry-run", "--out", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*-cpu-tiny-*.json")
    data = read("serving", path).data
    assert data["run_status"] == "complete"
    assert data["identity"]["device_kind"] == data["device"]["kind"] == "cpu"
    assert data["device"]["name"] and data["software"]["torch"]
    (load,) = data["loads"]
    assert len(load["requests"]["ttft"]) == data["settings"]["requests_per_load"]
    assert sum(load["steps"]["count"]) >= data["settings"]["max_new_tokens"]
    for key in ("itl_p95_s", "e2e_p95_s", "goodput_rps", "realised_rps", "saturated"):
        assert key in load["summary"]
    assert "goodput" in capsys.readouterr().out


def test_an_interrupted_run_leaves_a_finished_partial_file(tmp_path, monkeypatch):
    real = loadgen.run_load
    calls = []

    def run_load_then_stop(*args, **kwargs):
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(loadgen, "run_load", run_load_then_stop)
    monkeypatch.setitem(
        loadgen.PROFILES, "tiny", {**loadgen.PROFILES["tiny"], "fractions": (0.5, 0.6)}
    )
    with pytest.raises(KeyboardInterrupt):
        main(["--dry-run", "--out", str(tmp_path)])
    (path,) = tmp_path.glob("*.json")
    data = read("serving", path).data
    assert data["run_status"] == "partial" and len(data["loads"]) == 1


@pytest.mark.parametrize("rate", [0, -5.0, "fast", True])
def test_a_bad_rate_names_the_argument(rate):
    with pytest.raises(ValueError, match="rate must be a positive") as caught:
        loadgen.check_rate(rate)
    assert "\n" not in str(caught.value)


def test_bad_threads_is_one_line(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--dry-run", "--threads", "0"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--threads" in err
