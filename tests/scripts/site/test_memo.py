"""The decision memo's computed parts (scripts/site/memo.py)."""

import html
import json

import pytest

from scripts.site import memo
from scripts.site.bench_pages import OK


@pytest.fixture
def cpu_comparison():
    """The committed CPU comparison (results/bench/, profile "compare")."""
    committed = memo._newest("cpu")
    assert committed is not None, (
        "no CPU comparison committed: python -m scripts.bench --device cpu "
        "--profile compare residual_add_relu"
    )
    return committed


def test_the_committed_cpu_comparison_is_complete_and_never_times_the_kernel(
    cpu_comparison,
):
    data = cpu_comparison
    assert memo.device_kind(data) == "cpu"
    assert data["settings"]["timer"] == "host-perf-counter"
    groups = memo.by_shape(data)
    assert [g["shape"] for g in groups] == memo.contract()["compare_shapes"]["cpu"]
    rounds, repeats = data["settings"]["rounds"], data["settings"]["repeats_per_round"]
    for group in groups:
        assert set(group["providers"]) == {"eager", "compile", "triton"}
        custom = group["providers"]["triton"]
        assert custom["timed"] is False and custom["correct"]
        for name in ("eager", "compile"):
            row = group["providers"][name]
            assert row["correct"] and row["correct_after_timing"]
            assert len(row["samples_ms"]) == rounds * repeats
            assert row["first_call_ms"] is not None


def test_memo_says_plainly_that_no_device_comparison_exists(cpu_comparison):
    if memo.device_comparison() is not None:
        pytest.skip("a device comparison is committed")
    assert "has not been run" in memo.device_status()
    assert memo.recommendation().startswith(
        "**Keep the compiled baseline (`torch.compile`)"
    )
    assert memo.facts()["cuda_shapes"] == "1024×1024, 8192×4096, 32768×4096"


def test_memo_says_not_measured_when_no_comparison_exists(monkeypatch, tmp_path):
    monkeypatch.setattr(memo, "BENCH_DIR", tmp_path)
    assert memo.comparison() is None
    assert "Not measured yet" in memo.results_table()
    assert "Not measured yet" in memo.cpu_comparison()
    assert "has not been run" in memo.device_status()


def test_gpu_recommendation_follows_the_ratio():
    def data(eager, compiled, custom):
        medians = {"eager": eager, "compile": compiled, "triton": custom}
        rows = [
            {
                "kernel": "residual_add_relu",
                "shape": {"rows": 8, "cols": 8},
                "shape_text": "8×8",
                "dtype": "bfloat16",
                "bytes_moved": 384,
                "provider": name,
                "median_ms": value,
                "status": OK,
                "timed": True,
            }
            for name, value in medians.items()
        ]
        return {"rows": rows}

    slower = memo.gpu_recommendation(data(2.0, 1.0, 1.25))
    assert slower.startswith("**Keep the compiled baseline: it wins at 1 of 1")
    assert "R = min(eager, compile) / custom = 0.800" in slower
    faster = memo.gpu_recommendation(data(2.0, 1.0, 0.9))
    assert faster.startswith("**Use the custom kernel")


def test_memo_identity_names_the_hashes_and_whether_they_are_current(
    cpu_comparison,
):
    text = memo.identity()
    verdict = memo.committed("residual_add_relu")
    assert verdict["sha256"] in text
    assert "matches the file today" in text


def test_every_round_is_shown(cpu_comparison):
    text = memo.rounds()
    groups = memo.by_shape(cpu_comparison)
    rounds = groups[0]["providers"]["eager"]["rounds"]
    lines = [line for line in text.splitlines() if line.startswith("| eager |")]
    assert len(lines) == rounds * len(groups)


def test_memo_reads_a_device_comparison_when_one_is_committed(
    cpu_comparison, monkeypatch
):
    gpu = json.loads(json.dumps(cpu_comparison))
    gpu["identity"]["device_kind"] = "cuda"
    gpu["device"].update(kind="cuda", name="Test GPU")
    gpu["settings"]["timer"] = "cuda-event"
    for row in gpu["rows"]:
        if row["provider"] == "triton":
            compiled = next(
                r
                for r in gpu["rows"]
                if r["provider"] == "compile" and r["shape_text"] == row["shape_text"]
            )
            row.update({k: v for k, v in compiled.items() if k != "provider"})
            row["median_ms"] *= 2  # slower than compile
    monkeypatch.setattr(memo, "device_comparison", lambda: gpu)
    monkeypatch.setattr(memo, "comparison", lambda: gpu)
    assert memo.recommendation().startswith("**Keep the compiled baseline")
    assert "Test GPU" in memo.results_caption()
    assert "cuda-event" in memo.timing_boundary()
    assert "interpreter" not in memo.results_table()


def test_the_goal_and_ceilings_are_the_kernels():
    [goal] = [g for g in memo.contract()["goals"] if g["must"]]
    f_bw = [t for t in goal["must"] if t["metric"] == "F_bw"][0]["at_least"]
    # the goal is shown inert (F&#95;bw renders as F_bw)
    goal_text = html.unescape(memo.goal())
    assert goal_text.startswith(f"R ≥ 0.95, F_bw ≥ {f_bw:.2f}")
    # the Benchmarks page's formatter: the shape and note of a target are kept
    from scripts.site.bench_goals import target_label

    assert goal_text == ", ".join(target_label(t) for t in goal["must"])
    assert memo.speed_ceiling("compile") == 1.0
    assert f"{memo.speed_ceiling('eager'):.3g}" == "1.67"


def test_the_rounds_fold_is_not_indented_twice():
    """The build indents an indented placeholder's lines itself; a second
    indent made the tables a code block."""
    assert not any(line.startswith(" ") for line in memo.rounds().splitlines())


def test_facts_hold_every_key_the_page_uses():
    import re

    from evidence import ROOT

    page = (ROOT / "docs/reference/decision-memo.md").read_text()
    keys = re.findall(r"fact: scripts/site/memo.py:([\w.-]+)", page)
    assert keys and set(keys) <= set(memo.facts())
