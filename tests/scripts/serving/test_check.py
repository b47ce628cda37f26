import json

from scripts.serving import check
from snippets.lib.serving import measured


def test_check_writes_what_the_pages_read(tmp_path, monkeypatch):
    target = tmp_path / "check" / "replays.json"
    monkeypatch.setattr(measured, "CHECK", target)
    assert check.main() == 0
    written = json.loads(target.read_text())
    assert written["runs"] == measured.run_ids()
    assert [(e["model"], e["scale"]) for e in written["replays"]] == [
        (m, k) for m, k in measured.STORED
    ]
    assert measured.stored(1.0, "fitted") == written["replays"][0]["rows"]
