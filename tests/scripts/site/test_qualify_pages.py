"""The page text built from committed qualification results and the
comparison (scripts/site/qualify_pages.py)."""

import json
import subprocess
import sys

import pytest

import evidence as results
from scripts.site import qualify_pages as pages


@pytest.fixture
def cpu_comparison():
    """The committed CPU comparison (results/bench/, profile "compare")."""
    committed = pages._newest("cpu")
    assert committed is not None, (
        "no CPU comparison committed: python -m scripts.bench --device cpu "
        "--profile compare residual_add_relu"
    )
    return committed


def test_the_page_module_imports_neither_torch_nor_the_evaluator():
    code = (
        "import sys; import scripts.site.qualify_pages as p; p.check_table(); "
        "p.corpus_table(); bad = [m for m in sys.modules if m in ('torch', "
        "'triton') or m.startswith('scripts.qualify')]; print(bad)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=results.ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_committed_cpu_comparison_is_complete_and_never_times_the_kernel(
    cpu_comparison,
):
    data = cpu_comparison
    assert pages._device_kind(data) == "cpu"
    assert data["settings"]["timer"] == "host-perf-counter"
    groups = pages._by_shape(data)
    assert [g["shape"] for g in groups] == pages.contract()["compare_shapes"]["cpu"]
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
    if pages._device_comparison() is not None:
        pytest.skip("a device comparison is committed")
    assert "has not been run" in pages.memo_device_status()
    assert pages.memo_recommendation().startswith(
        "**Keep the compiled baseline (`torch.compile`)"
    )
    assert "1024×1024, 8192×4096, 32768×4096" in pages.memo_device_status()


def test_memo_says_not_measured_when_no_comparison_exists(monkeypatch, tmp_path):
    monkeypatch.setattr(pages, "BENCH_DIR", tmp_path)
    assert pages._comparison() is None
    assert "Not measured yet" in pages.memo_results()
    assert "Not measured yet" in pages.memo_recommendation()
    assert "has not been run" in pages.memo_device_status()


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
            }
            for name, value in medians.items()
        ]
        return {"rows": rows}

    slower = pages._gpu_recommendation(data(2.0, 1.0, 1.25))
    assert slower.startswith("**Keep the compiled baseline: it wins at 1 of 1")
    assert "R = min(eager, compile) / custom = 0.800" in slower
    faster = pages._gpu_recommendation(data(2.0, 1.0, 0.9))
    assert faster.startswith("**Use the custom kernel")


def test_memo_identity_names_the_hashes_and_whether_they_are_current(
    cpu_comparison,
):
    text = pages.memo_identity()
    verdict = pages.committed("residual_add_relu")
    assert verdict["sha256"] in text
    assert "matches the file today" in text


def test_printed_failure_is_a_text_block_ending_with_the_verdict():
    block = pages.printed_failure("broken_nan_to_zero")
    assert block.startswith("```text\n") and block.endswith("```\n")
    assert "verdict: REJECTED: check nan-mask failed on case nan-inf-float32" in block


def test_every_round_is_shown(cpu_comparison):
    text = pages.memo_rounds()
    groups = pages._by_shape(cpu_comparison)
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
    monkeypatch.setattr(pages, "_device_comparison", lambda: gpu)
    monkeypatch.setattr(pages, "_comparison", lambda: gpu)
    assert pages.memo_recommendation().startswith("**Keep the compiled baseline")
    assert "Test GPU" in pages.memo_results_caption()
    assert "cuda-event" in pages.memo_timing_boundary()
    assert "interpreter" not in pages.memo_results()


def test_the_goal_and_ceilings_are_the_kernels():
    [goal] = [g for g in pages.contract()["goals"] if g["must"]]
    f_bw = [t for t in goal["must"] if t["metric"] == "F_bw"][0]["at_least"]
    assert pages._goal() == f"R ≥ 0.95, F_bw ≥ {f_bw:.2f}, ≥ 1.4× eager"
    assert pages._speed_ceiling("compile") == 1.0
    assert f"{pages._speed_ceiling('eager'):.3g}" == "1.67"


def test_contract_text_matches_the_committed_contract():
    assert pages.exit_codes_text() == (
        "0 qualified, 1 rejected, 2 harness error, 3 inconclusive here"
    )
    assert pages.check_count() == 15
    assert pages.kernel_case_count() == 32 and pages.unsupported_case_count() == 5
    assert pages.isolation_text().startswith(("bubblewrap (", "fallback ("))
    assert pages.limits_text().startswith("30 s per case, 300 s for the whole run")
    assert pages.black_box_limits_list().count("\n- ") >= 3
    assert "`ctypes`" in pages.review_constructs_text()
    assert "float64" in pages.divergence_text()
    assert pages.interpreter_max_numel_text() == "2,097,152"
    assert pages.axis_limit_text() == "65,535"
    assert pages.grid_limits_text() == (
        "2,147,483,647 programs on axis 0 and 65,535 on axes 1 and 2"
    )
    assert pages.bench_shapes_text() == (
        "1024×1024, 32768×4096, 50021×4099 (from kernels/residual_add_relu.py)"
    )
    assert pages.launch_only_cases_text() == (
        "`programs-past-65535`, `bench-32768x4096` and `bench-50021x4099`"
    )
    table = pages.case_table("unsupported")
    assert table.count("\n") == 2 + 5 and "`not-a-tensor`" in table


def test_a_candidates_words_cannot_break_the_page(monkeypatch):
    verdict = json.loads(json.dumps(pages.committed("generated_candidate")))
    verdict["cases"][0]["failures"] = [
        {"check": "values", "case": "size-1", "call": 1, "detail": "a | b <script>"}
    ]
    verdict["cases"][0]["printed"] = "``` escaped"
    monkeypatch.setattr(pages, "committed", lambda name, device="cpu": verdict)
    table = pages.failure_table("generated_candidate")
    assert "<script>" not in table and "a &#124; b" in table
    verdict["cases"][0]["result"] = "fail"
    assert pages.printed_failure("generated_candidate").startswith("````text\n")


def test_durations_never_print_in_scientific_notation():
    assert pages.format_ms(0.0043) == "4.3 µs"
    assert pages.format_ms(26.3) == "26.3 ms"
    assert pages.format_ms(2110.0) == "2.11 s"
