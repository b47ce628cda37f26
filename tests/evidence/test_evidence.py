"""The result model (evidence/__init__.py), exercised on bench files."""

import json
from pathlib import Path

import pytest

import evidence

FIXTURES = (
    Path(__file__).resolve().parents[1] / "scripts" / "site" / "fixtures" / "bench"
)


def good() -> dict:
    return json.loads((FIXTURES / "gpu_valid.json").read_text())


def test_statuses_are_read_from_the_schema():
    assert evidence.enum("bench", "run_status") == (
        "running",
        "complete",
        "interrupted",
        "failed",
    )
    assert "interpreter-correctness-only" in evidence.enum("bench", "row_status")
    with pytest.raises(KeyError, match="no schema for 'nope'"):
        evidence.schema("nope")


def test_write_then_read_round_trips(tmp_path):
    path = evidence.write("bench", tmp_path / "r.json", good())
    loaded = evidence.read("bench", path, tmp_path)
    assert loaded.data == good()
    assert loaded.sha256 == evidence.sha256_file(path)
    assert loaded.name == "r.json"
    assert not list(tmp_path.glob(".*.tmp"))


def test_write_refuses_an_invalid_file_and_leaves_nothing(tmp_path):
    data = good()
    data["rows"][0]["bytes_moved"] = -1  # physical quantities are non-negative
    with pytest.raises(evidence.ResultFileError, match=r"'rows\[0\]\.bytes_moved'"):
        evidence.write("bench", tmp_path / "r.json", data)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"a": NaN}', "non-finite number NaN"),
        ('{"a": Infinity}', "non-finite number Infinity"),
        ("[" * 40 + "]" * 40, "nested more than"),
        ("{", "not valid JSON"),
    ],
    ids=["nan", "inf", "deep", "truncated"],
)
def test_read_refuses_what_is_not_a_result(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(evidence.ResultFileError, match=f"bad.json: .*{message}"):
        evidence.read("bench", path, tmp_path)


def test_read_refuses_links_and_folders(tmp_path):
    target = tmp_path / "real.json"
    target.write_text(json.dumps(good()))
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(evidence.ResultFileError, match="not a regular file"):
        evidence.read("bench", link, tmp_path)
    with pytest.raises(evidence.ResultFileError, match="not a regular file"):
        evidence.read("bench", tmp_path, tmp_path)


def test_triton_rows_must_say_what_launched():
    data = good()
    triton = next(r for r in data["rows"] if r["provider_kind"] == "triton")
    triton["launches"] = [{"kernel": "k", "constexprs": {}, "num_warps": 0}]
    with pytest.raises(evidence.ResultFileError, match="num_warps"):
        evidence.validate("bench", data, "f.json")
    del triton["launches"]
    with pytest.raises(evidence.ResultFileError, match="'launches' is a required"):
        evidence.validate("bench", data, "f.json")


def test_stale_changes_lists_each_changed_file():
    recorded = {"a.py": "1", "b.py": "2"}
    now = {"a.py": "1", "b.py": "3", "c.py": "4"}
    assert evidence.stale_changes(recorded, now) == [
        {"path": "b.py", "was": "2", "now": "3"},
        {"path": "c.py", "was": None, "now": "4"},
    ]


def test_kernel_source_paths_ignore_odd_names(tmp_path):
    assert evidence.kernel_source_paths("../etc", tmp_path) == []
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "k.py").write_text("# k\n")
    assert evidence.current_sources("k", tmp_path) == {
        "kernels/k.py": evidence.sha256_file(tmp_path / "kernels" / "k.py")
    }


def test_slug_makes_a_safe_file_name_part():
    from evidence import slug

    assert slug("NVIDIA H200") == "nvidia-h200"
    assert slug("../../etc/passwd") == "etc-passwd"
    assert slug("!!!") == "device"
    assert len(slug("x" * 100)) == 40
