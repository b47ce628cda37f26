"""evidence.contributed: the checks every reader of a contributed file
shares, each shown failing on a known-bad file (issue 51)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from evidence import ResultFileError, dumps, validate
from evidence.contributed import (
    bus_factor,
    check_collectives,
    check_serving,
    link_bound,
    load_folder,
)
from snippets.lib import collectives

FIXTURES = Path(__file__).parents[1] / "scripts" / "bench" / "fixtures" / "importers"


def _row(size: int, seconds: float, factor: float) -> dict:
    algbw = size / seconds
    timing = {
        "time_us": seconds * 1e6,
        "algbw_bytes_per_s": algbw,
        "busbw_bytes_per_s": algbw * factor,
    }
    return {"size_bytes": size, "out_of_place": timing, "in_place": dict(timing)}


def collectives_run(algbw: float = 300e9, link: str = "nvlink", hosts: int = 1):
    size = 2**30
    return {
        "schema_version": 1,
        "source": "nccl-tests",
        "evidence": "measured, contributed",
        "identity": {
            "source_sha256": "a" * 64,
            "imported_utc": "2026-12-01T10:00:00Z",
            "started_local": "2026-11-30 09:00:00",
            "json_version": 2,
            "tool_version": "2.17.6",
            "nccl_version": "2.27.3",
        },
        "device": {"name": "NVIDIA H200", "ranks": 8, "hosts": hosts, "link": link},
        "settings": {
            "collective": "all_reduce",
            "dtype": "float",
            "redop": "sum",
            "iterations": 20,
            "warmup_iters": 5,
            "per_iter_timing": False,
            "nccl_env": {},
        },
        "rows": [_row(size, size / algbw, 1.75)],
    }


def test_a_good_run_passes_schema_and_checks():
    data = collectives_run()
    validate("contributed_collectives", data, "run.json")
    check_collectives(data, "run.json")


def test_bus_factors_are_the_lessons():
    for name in collectives.COLLECTIVES:
        for n in (2, 8, 64):
            assert bus_factor(name, n) == pytest.approx(collectives.bus_factor(name, n))


def test_nvls_busbw_above_the_link_passes_but_algbw_above_it_does_not():
    check_collectives(collectives_run(algbw=276e9), "nvls.json")  # busbw 483 GB/s
    with pytest.raises(ResultFileError, match=r"rows\[0\].out_of_place.time_us"):
        check_collectives(collectives_run(algbw=470e9), "fast.json")


def test_a_host_link_across_hosts_is_refused():
    with pytest.raises(ResultFileError, match="device.link"):
        check_collectives(collectives_run(link="pcie5", hosts=2), "x.json")


def test_pcie_bounds_a_single_host_run_by_its_own_rate():
    rate, what = link_bound({"name": "NVIDIA H200", "link": "pcie5", "hosts": 1})
    assert rate < 70e9 and "PCIe" in what
    with pytest.raises(ResultFileError, match="impossible"):
        check_collectives(collectives_run(algbw=100e9, link="pcie5"), "pcie.json")


def test_an_unknown_device_gets_headroom_only():
    rate, _ = link_bound({"name": "NVIDIA B200", "link": "nvlink", "hosts": 1})
    assert rate == pytest.approx(900e9)


def test_an_edited_busbw_is_refused():
    data = collectives_run()
    data["rows"][0]["in_place"]["busbw_bytes_per_s"] *= 1.1
    with pytest.raises(ResultFileError, match=r"rows\[0\].in_place.busbw"):
        check_collectives(data, "x.json")


def serving_run():
    return {
        "schema_version": 1,
        "source": "vllm bench serve",
        "evidence": "measured, contributed",
        "identity": {
            "source_sha256": "b" * 64,
            "imported_utc": "2026-12-01T10:00:00Z",
            "tool_version": "0.11.0",
            "engine": "vllm",
            "engine_version": "0.11.0",
        },
        "device": {"name": "NVIDIA H200", "count": 1},
        "settings": {
            "model": "m",
            "backend": "vllm",
            "request_rate": 4.0,
            "max_concurrency": None,
            "num_prompts": 100,
        },
        "summary": {
            "duration_s": 25.0,
            "completed": 100,
            "request_throughput": 4.0,
            "output_throughput": 10.0,
            "latency_s": {"ttft": {"mean": 0.05, "median": 0.04, "p99": 0.2}},
        },
    }


def test_serving_checks_each_fail_on_their_bad_file():
    good = serving_run()
    validate("contributed_serving", good, "s.json")
    check_serving(good, "s.json")
    cases = [
        (("summary", "completed"), 101, "summary.completed"),
        (("summary", "request_throughput"), 5.0, "request_throughput"),
        (("summary", "request_goodput"), 1.0, "goodput without its SLOs"),
        (("summary", "latency_s"), {"ttft": {"median": 0.3, "p99": 0.2}}, "ttft"),
        (("summary", "latency_s"), {"ttft": {"p90": 0.3, "p99": 0.2}}, "ttft"),
    ]
    for (part, key), value, named in cases:
        bad = copy.deepcopy(good)
        bad[part][key] = value
        with pytest.raises(ResultFileError, match=named):
            check_serving(bad, "s.json")


def test_one_file_per_source_run(tmp_path):
    data = collectives_run()
    (tmp_path / "a.json").write_text(dumps(data))
    (tmp_path / "b.json").write_text(dumps(data))
    with pytest.raises(ResultFileError, match="one file per run"):
        load_folder("contributed_collectives", tmp_path)
    (tmp_path / "b.json").unlink()
    assert len(load_folder("contributed_collectives", tmp_path)) == 1
    assert load_folder("contributed_collectives", tmp_path / "none") == []


def test_the_fixtures_hold_no_file_of_ours():
    for path in FIXTURES.iterdir():  # other tools' formats, never our schema
        text = path.read_text().splitlines()[0]
        assert "schema_version" not in json.loads(text)
