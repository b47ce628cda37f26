"""The page text built from committed qualification results and the
comparison (scripts/site/qualify_pages.py)."""

import html
import json
import subprocess
import sys

import evidence
from scripts.qualify.checks import CHECKS
from scripts.site import qualify_pages as pages


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
        cwd=evidence.ROOT,
        timeout=600,  # a hang guard only: a busy machine compiles slowly
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_printed_failure_is_a_text_block_ending_with_the_verdict():
    block = pages.printed_failure("broken_nan_to_zero")
    assert block.startswith("```text\n") and block.endswith("```\n")
    assert "verdict: REJECTED: check nan-mask failed on case nan-" in block


def test_contract_text_matches_the_committed_contract():
    assert pages.fmt_exit_codes() == (
        "0 qualified, 1 rejected, 2 harness error, 3 inconclusive here, "
        "4 internal error"
    )
    assert pages.check_count() == len(CHECKS)  # the registry's, every one
    assert pages.kernel_case_count() == 39 and pages.unsupported_case_count() == 5
    assert pages.fmt_isolation().startswith(("bubblewrap (", "fallback ("))
    facts = pages.facts()
    assert (facts["limits.case-cpu"], facts["limits.deadline-cpu"]) == ("30 s", "300 s")
    assert pages.black_box_limits_list().count("\n- ") >= 3
    assert "<code>ctypes</code>" in pages.fmt_review_constructs()
    assert "float64" in pages.fmt_divergence()
    assert pages.fmt_interpreter_max_numel() == "2,097,152"
    assert pages.fmt_axis_limit() == "65,535"
    assert (facts["grid.axis-0"], facts["grid.axes-1-2"]) == ("2,147,483,647", "65,535")
    assert html.unescape(pages.fmt_bench_shapes()) == (
        "1024×1024, 32768×4096, 50021×4099 (from kernels/residual_add_relu.py)"
    )
    assert pages.fmt_launch_only_cases() == (
        "<code>programs-past-65535</code>, <code>bench-32768x4096</code>, "
        "<code>bench-50021x4099</code> and <code>size-bands-large</code>"
    )
    table = pages.case_table("unsupported")
    assert table.count("\n") == 2 + 5 and "<code>not-a-tensor</code>" in table


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
