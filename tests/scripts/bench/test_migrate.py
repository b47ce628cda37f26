"""Migrating old result files to schema 2 (scripts/bench/migrate.py).

fixtures/schema1.json is a synthetic schema-1 bench file; fixtures/
comparison.cpu.json is the qualification comparison as it was committed
before the migration (results/qualify/comparison.cpu.json).
"""

import json
from pathlib import Path

import pytest

from evidence import ROOT, ResultFileError, read, sha256_file
from scripts.bench import migrate

FIXTURES = Path(__file__).parent / "fixtures"


def test_schema1_bench_file_keeps_everything_and_says_where_from(tmp_path):
    source = FIXTURES / "schema1.json"
    old = json.loads(source.read_text())
    written = migrate.migrate_file(source, tmp_path)
    assert written.name == "schema1.json"
    new = read("bench", written).data  # valid schema 2
    assert new["schema_version"] == 2
    origin = new["identity"].pop("migrated_from")
    assert origin["file"] == "schema1.json"
    assert origin["sha256"] == sha256_file(source)
    for key in ("software", "device", "settings", "kernels", "ceilings"):
        assert new[key] == old[key]
    assert new["identity"] == old["identity"]
    for before, after in zip(old["rows"], new["rows"], strict=True):
        if before["provider_kind"] == "triton":
            assert after.pop("launches") is None
            config = before.pop("triton_config", None)
            assert after.pop("schema1_triton_config", None) == config
        assert after == before


def test_comparison_becomes_a_compare_profile_bench_file(tmp_path):
    source = FIXTURES / "comparison.cpu.json"
    old = json.loads(source.read_text())
    written = migrate.migrate_file(source, tmp_path)
    assert written.name == "20261129T153454Z-cpu-compare-7536210.json"
    new = read("bench", written).data
    identity = new["identity"]
    assert identity["profile"] == "compare" and identity["device_kind"] == "cpu"
    assert identity["commit"] == old["identity"]["commit"]
    assert identity["dirty"] == old["identity"]["dirty"]
    assert identity["started_utc"] == "2026-11-29T15:34:54+00:00"
    assert identity["migrated_from"]["sha256"] == sha256_file(source)
    assert new["software"] == old["software"]
    assert new["device"]["name"] == old["device_name"]
    sources = new["kernels"]["residual_add_relu"]["sources"]
    assert sources == {"kernels/residual_add_relu.py": old["identity"]["kernel_sha256"]}
    assert len(new["rows"]) == 3 * len(old["rows"])
    for old_row in old["rows"]:
        text = "×".join(map(str, old_row["shape"]))
        rows = {r["provider"]: r for r in new["rows"] if r["shape_text"] == text}
        assert set(rows) == {"eager", "compile", "triton"}
        for name, timing in old_row["timings"].items():
            row = rows[name]
            assert row["samples_ms"] == timing["samples_ms"]
            assert row["median_ms"] == timing["median_ms"]
            assert row["first_call_ms"] == old_row["first_call_ms"][name]
            assert row["correct"] == old_row["correct_before"][name]
            assert row["correct_after_timing"] == old_row["correct_after"][name]
        triton = rows["triton"]
        assert triton["status"] == "interpreter-correctness-only"
        assert not triton["timed"] and triton["launches"] is None


def test_the_committed_compare_file_is_the_migrated_comparison(tmp_path):
    written = migrate.migrate_file(FIXTURES / "comparison.cpu.json", tmp_path)
    committed = ROOT / "results" / "bench" / written.name
    assert committed.read_bytes() == written.read_bytes()


def test_committed_bench_files_are_all_schema_2():
    for path in sorted((ROOT / "results" / "bench").glob("*.json")):
        assert read("bench", path).data["schema_version"] == 2


def test_a_file_of_another_kind_is_refused(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"schema_version": 2}))
    with pytest.raises(ResultFileError, match="other.json: not an old result file"):
        migrate.migrate_file(path, tmp_path)


def test_cli_reports_one_line_per_file(tmp_path, capsys):
    assert migrate.main([str(FIXTURES / "schema1.json"), "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("\n") == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert migrate.main([str(bad), "--out", str(tmp_path)]) == 1
    assert "bad.json: not valid JSON" in capsys.readouterr().err
