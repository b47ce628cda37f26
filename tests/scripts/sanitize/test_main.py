import json

import pytest

from scripts.sanitize.__main__ import main


def test_dry_run_cli(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--dry-run", "--tools", "memcheck"]) == 0
    data = json.loads((tmp_path / "sanitizer.dry-run.json").read_text())
    assert {r["tool"] for r in data["runs"]} == {"memcheck"}
    assert "runs (dry-run)" in capsys.readouterr().out


def test_all_flag_and_bad_tool(tmp_path):
    assert main(["--out", str(tmp_path), "--dry-run", "--all", "--kernels"]) == 0
    data = json.loads((tmp_path / "sanitizer.dry-run.json").read_text())
    assert all(r["kind"] == "planted" for r in data["runs"])
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--dry-run", "--tools", "nope"])
