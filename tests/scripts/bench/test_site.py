"""scripts/bench/site.py: the speed budgets are measured beside a
calibration, written through the result model, and a hang, a skip or a bad
argument is one line, never a failed test elsewhere."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evidence import read
from scripts.bench import site

ROOT = Path(__file__).resolve().parents[3]


def quick(ctx, limit_s):
    return site.timed([sys.executable, "-c", "pass"], ctx, limit_s)


def hangs(ctx, limit_s):
    return site.timed(
        [sys.executable, "-c", "import time; time.sleep(30)"], ctx, limit_s
    )


def skips(ctx, limit_s):
    raise site.Skip("no Chromium here")


@pytest.fixture
def budgets(monkeypatch):
    """Three stand-in budgets and a fast calibration."""
    chosen = (
        site.Budget("quick", 5, "wall", "one", quick),
        site.Budget("hangs", 0.05, "wall", "all", hangs),
        site.Budget("skips", 4, "wall", "all", skips),
    )
    monkeypatch.setattr(site, "BUDGETS", chosen)
    monkeypatch.setattr(site, "CALIBRATION_SAMPLES", 1)
    monkeypatch.setattr(site, "_one_calibration", lambda pool: 0.002)
    return chosen


def test_each_budget_is_written_beside_its_calibration(budgets, tmp_path, capsys):
    code = site.run(["quick", "hangs", "skips"], ["--out", "x"], tmp_path)
    assert code == site.EXIT_FAILED  # the hang is a failed measurement
    [path] = tmp_path.glob("*.json")
    data = read("site_speed", path).data  # valid against the schema
    by_name = {e["name"]: e for e in data["measurements"]}
    assert by_name["quick"]["status"] == "measured"
    assert by_name["quick"]["seconds"] == by_name["quick"]["wall_s"] > 0
    assert by_name["quick"]["calibration_s"] >= 0
    assert by_name["hangs"] == {
        "name": "hangs", "budget_s": 0.05, "clock": "wall", "width": "all",
        "status": "failed", "reason": "hung: no result after 1.5 s",
    }  # fmt: skip
    assert by_name["skips"]["reason"] == "no Chromium here"
    assert len(data["calibration"]["widths"]["one"]) == 2  # before and after
    assert data["machine"]["logical_cpus"] >= 1
    printed = capsys.readouterr().out
    assert "x calibration (one)" in printed and "hung" in printed


def test_the_ratio_uses_the_median_calibration_around_the_figure(budgets):
    taken = iter([[1.0, 9.0, 2.0], [4.0, 3.0, 5.0]])

    class Calibrator:
        def sample(self, width):
            return list(next(taken))

    entry = site.measure(
        site.Budget("x", 5, "cpu", "one", lambda ctx, s: site.Timing(7.0, 1.5)),
        None,
        Calibrator(),
    )
    assert entry["seconds"] == 1.5  # the cpu clock for a cpu budget
    assert entry["calibration_s"] == 3.5  # median of 1, 9, 2, 4, 3, 5


def test_a_run_with_every_figure_measured_exits_0(budgets, tmp_path):
    assert site.run(["quick"], [], tmp_path) == site.EXIT_OK


def test_the_prose_edit_never_touches_docs(tmp_path):
    ctx = site.Context(ROOT, tmp_path)
    before = (ROOT / "docs" / "kernels" / "index.md").read_bytes()
    config = site.edited_config(ctx)
    assert config.parent == tmp_path
    text = config.read_text()
    assert f"docs_dir: {tmp_path / 'edited-docs'}" in text
    assert f"- {ROOT / 'scripts/site/hooks.py'}" in text
    assert f"- {ROOT / 'scripts/site/theme_hooks.py'}" in text
    assert f"custom_dir: {ROOT / 'overrides'}" in text
    edited = tmp_path / "edited-docs" / "kernels" / "index.md"
    assert edited.read_bytes().endswith(b"One more sentence.\n")
    assert (ROOT / "docs" / "kernels" / "index.md").read_bytes() == before


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--only", "warp_speed"], "invalid choice: 'warp_speed'"),
        (["--only", "cold_build", "--skip", "cold_build"], "leave no budget"),
        (["--out"], "expected one argument"),
    ],
    ids=["unknown-budget", "nothing-left", "missing-value"],
)
def test_a_bad_argument_is_one_line(argv, message):
    done = subprocess.run(
        [sys.executable, "-m", "scripts.bench", "site", *argv],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == site.EXIT_USAGE
    assert done.stderr.startswith("bench site: ") and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_the_list_names_every_budget_with_its_limit():
    done = subprocess.run(
        [sys.executable, "-m", "scripts.bench", "site", "--list"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0
    names = [line.split()[0] for line in done.stdout.splitlines()]
    assert names == list(site.NAMES)
    assert {"cold_build", "test_suite", "first_calculator_run"} <= set(names)


def test_the_schema_refuses_a_hostile_name(tmp_path, budgets):
    site.run(["quick"], [], tmp_path)
    [path] = tmp_path.glob("*.json")
    data = json.loads(path.read_text())
    data["measurements"][0]["name"] = "<img src=x onerror=alert(1)>"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"measurements\[0\]\.name"):
        read("site_speed", path)


def test_a_zero_calibration_is_refused(tmp_path, budgets):
    # The table divides by it: a file that claims 0 s is refused by name.
    site.run(["quick"], [], tmp_path)
    [path] = tmp_path.glob("*.json")
    data = json.loads(path.read_text())
    data["measurements"][0]["calibration_s"] = 0
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"calibration_s"):
        read("site_speed", path)


def test_the_real_command_measures_one_budget_into_a_valid_file(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "scripts.bench", "site", "--only",
         "benchmarks_page_render", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [path] = tmp_path.glob("*.json")
    data = read("site_speed", path).data
    [entry] = data["measurements"]
    assert entry["status"] == "measured" and entry["clock"] == "cpu"
    assert len(data["calibration"]["widths"]["one"]) == 2 * site.CALIBRATION_SAMPLES
    assert data["evidence"].startswith("measured, CPU")
    assert "benchmarks_page_render" in done.stdout and "wrote" in done.stdout
