"""Reading a profile record top down, on a small fixture and on the
committed CPU trace."""

import json

import pytest

from snippets.from_trace_to_kernel import trace
from snippets.lib.amdahl import speedup_cap

FIXTURE = {
    "schema": 1,
    "device": {"name": "Test CPU"},
    "software": {"torch": "0.0"},
    "workload": {"profiled_steps": 2, "torch_threads": 1},
    "trace": {
        "step_total_us": 1000.0,
        "phases": [
            {
                "name": "forward",
                "total_us": 400.0,
                "top_ops": [
                    {"name": "aten::addmm", "calls": 4, "self_us": 150.0},
                    {"name": "aten::gelu", "calls": 2, "self_us": 50.0},
                ],
            },
            {
                "name": "backward",
                "total_us": 500.0,
                "top_ops": [
                    {"name": "aten::mm", "calls": 8, "self_us": 250.0},
                    {"name": "aten::gelu", "calls": 2, "self_us": 30.0},
                ],
            },
            {
                "name": "optimizer",
                "total_us": 80.0,
                "top_ops": [{"name": "aten::mul_", "calls": 9, "self_us": 40.0}],
            },
            {"name": "step", "total_us": 1000.0, "top_ops": []},
        ],
    },
}


def test_top_down_on_the_fixture():
    assert trace.phase_shares(FIXTURE) == {
        "forward": 0.4,
        "backward": 0.5,
        "optimizer": 0.08,
    }
    assert trace.op_self_us(FIXTURE)["aten::gelu"] == 80.0
    assert trace.hottest_op(FIXTURE) == ("aten::mm", 0.25)
    assert trace.family_share(FIXTURE) == 0.4
    assert trace.trace_facts(FIXTURE)["top_op_cap"] == f"{speedup_cap(0.25):.2f}×"
    assert trace.trace_facts(FIXTURE)["matmul_3x"] == "1.36×"
    assert trace.trace_facts(FIXTURE)["step_ms"] == "0.5 ms"
    assert "| `aten::mm` | backward | 4 | 0.12 | 25% |" in trace.ops_table(FIXTURE)
    assert "rest of the step" in trace.phase_table(FIXTURE)


def test_bad_fields_and_files(tmp_path):
    assert set(trace.facts()) >= {"trace.step_ms", "gpu.idle_cap", "gpu.idle"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": 2}))
    with pytest.raises(ValueError, match="path"):
        trace.load(bad)
    assert trace.fmt_required(0.1, 1.5) == "no finite speedup"


def test_committed_trace_is_a_cpu_record_with_identity():
    record = trace.load()
    assert record["device"]["kind"] == "cpu"
    assert record["evidence"].startswith("CPU run")
    assert record["made_by"] == "python -m scripts.tiny_lm.profile"
    assert {"commit", "dirty"} <= set(record["git"])
    assert 0 < trace.family_share(record) < 1
    assert trace.gpu_exercise_facts()["idle_cap"] == f"{speedup_cap(0.3):.2f}×"
