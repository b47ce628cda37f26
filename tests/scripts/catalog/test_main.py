"""``python -m scripts.catalog``: writes results/kernels.json, and
``--check`` fails, in one line, when the file differs from the descriptors."""

import json

import evidence
from scripts.catalog.__main__ import EXIT_OK, EXIT_STALE, main


def test_check_passes_on_a_fresh_file_and_fails_on_a_stale_one(tmp_path, capsys):
    out = tmp_path / "kernels.json"
    assert main(["--out", str(out)]) == EXIT_OK
    assert main(["--out", str(out), "--check"]) == EXIT_OK
    stale = json.loads(out.read_text("utf-8"))
    stale["kernels"].popitem()
    out.write_text(evidence.dumps(stale), "utf-8")
    capsys.readouterr()
    assert main(["--out", str(out), "--check"]) == EXIT_STALE
    message = capsys.readouterr().err.strip()
    assert message.endswith("is out of date: run make catalog")
    assert "\n" not in message


def test_check_fails_when_the_file_is_missing(tmp_path, capsys):
    assert main(["--out", str(tmp_path / "absent.json"), "--check"]) == EXIT_STALE
