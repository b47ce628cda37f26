"""snippets.lib.contributed: the nine real-format samples, imported through
the command, shown in the pages' tables, each row tagged with its source;
an empty folder shows an empty table and a count of zero (issue 51)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.bench.import_cli import main as import_main
from snippets.collectives_and_their_cost.worked import contributed_table
from snippets.lib.contributed import facts, serving_table

FIXTURES = Path(__file__).parents[2] / "scripts" / "bench" / "fixtures" / "importers"
H200 = ["--device", "NVIDIA H200", "--gpus", "1", "--engine-version", "0.11.0"]
MODEL = ["--model", "meta-llama/Llama-3.1-8B-Instruct"]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    root = tmp_path_factory.mktemp("contributed")
    nccl = ["--tool", "nccl-tests", "--tool-version", "2.17.6"]
    jobs = [
        ("nccl-allreduce-h200-nvls.json", [*nccl, "--link", "nvlink"], "c"),
        ("nccl-allreduce-h200-ring-iter.json", [*nccl, "--link", "nvlink"], "c"),
        ("nccl-allgather-h100-2node-ib.json", [*nccl, "--link", "infiniband"], "c"),
        ("vllm-h200-rate8-goodput.json", ["--tool", "vllm", "--slo", "ttft:500"], "s"),
        ("vllm-h200-inf-conc64.json", ["--tool", "vllm", *H200], "s"),
        ("vllm-h100-rate2-p99.9.json", ["--tool", "vllm", *H200], "s"),
        ("sglang-h200-three-rates.jsonl", ["--tool", "sglang", *H200, *MODEL], "s"),
        ("sglang-h200-all-at-once.jsonl", ["--tool", "sglang", *H200, *MODEL], "s"),
        ("sglang-h100-rate1.jsonl", ["--tool", "sglang", *H200, *MODEL], "s"),
    ]
    for name, flags, sub in jobs:
        code = import_main([str(FIXTURES / name), *flags, "--results", str(root / sub)])
        assert code == 0, name
    return root


def test_collectives_table_shows_each_run_beside_datasheet_and_model(imported):
    table = contributed_table(imported / "c")
    lines = table.splitlines()
    assert len(lines) == 2 + 3
    assert "busbw (contributed)" in lines[0] and "(datasheet)" in lines[0]
    assert "(model)" in lines[0]
    assert sum("NVIDIA H200" in line for line in lines) == 2
    assert "Ring" in table and "NCCL&#x27;s choice" in table
    assert "InfiniBand" in table


def test_serving_table_tags_every_row_with_its_tool(imported):
    lines = serving_table(imported / "s").splitlines()
    rows = lines[2:]
    assert len(rows) == 8  # three vLLM files, five SGLang lines
    assert all("vllm bench serve" in r or "sglang bench&#95;serving" in r for r in rows)
    assert "measured, contributed" in lines[0]
    assert any("(ttft 500 ms)" in r for r in rows)  # goodput with its SLO
    counts = facts(imported / "c", imported / "s")
    assert counts == {"collectives_runs": "3", "serving_runs": "8"}


def test_file_strings_reach_the_page_inert(imported, tmp_path):
    source = json.loads((FIXTURES / "vllm-h200-inf-conc64.json").read_text())
    source["model_id"] = "<img src=x onerror=alert(1)>|**bold**"
    path = tmp_path / "markup.json"
    path.write_text(json.dumps(source))
    out = tmp_path / "s"
    assert import_main([str(path), "--tool", "vllm", *H200, "--results", str(out)]) == 0
    table = serving_table(out)
    assert "<img" not in table and "&lt;img" in table
    assert "|**" not in table


def test_no_contributed_file_shows_an_empty_table(tmp_path):
    assert contributed_table(tmp_path).splitlines()[2].startswith("| - |")
    assert serving_table(tmp_path).splitlines()[2].startswith("| - |")
    assert facts(tmp_path, tmp_path) == {"collectives_runs": "0", "serving_runs": "0"}
