"""The load generator's --dry-run: the smoke test a GPU script runs first."""

from evidence import read
from scripts.serving.__main__ import main


def test_dry_run_writes_a_valid_cpu_result(tmp_path, capsys):
    assert main(["--dry-run", "--out", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*-cpu-tiny-*.json")
    data = read("serving", path).data
    assert data["identity"]["device_kind"] == data["device"]["kind"] == "cpu"
    assert data["device"]["name"] and data["software"]["torch"]
    (load,) = data["loads"]
    assert len(load["requests"]["ttft"]) == data["settings"]["requests_per_load"]
    assert sum(load["steps"]["count"]) >= data["settings"]["max_new_tokens"]
    assert "TTFT p50/p99" in capsys.readouterr().out
