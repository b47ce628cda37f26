"""`python -m scripts.bench import`: real-format files accepted, hostile ones
refused in one line naming the field (issue 51).

The fixtures in fixtures/importers/ are written in the tools' own formats
(nccl-tests' ``src/util.cu`` JSON writer, vLLM's ``vllm/benchmarks/serve.py``
``--save-result``, SGLang's ``bench_serving.py`` JSONL lines); their numbers
are invented for the tests and are never shown as measurements.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence.contributed import load_folder
from scripts.bench.__main__ import main as bench_main
from scripts.bench.import_cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "importers"
NCCL = ["--tool", "nccl-tests", "--tool-version", "2.17.6"]
H200 = ["--device", "NVIDIA H200", "--gpus", "1", "--engine-version", "0.11.0"]
SGLANG = ["--tool", "sglang", *H200, "--model", "meta-llama/Llama-3.1-8B-Instruct"]

SAMPLES = [
    ("nccl-allreduce-h200-nvls.json", [*NCCL, "--link", "nvlink"], 1),
    ("nccl-allreduce-h200-ring-iter.json", [*NCCL, "--link", "nvlink"], 1),
    ("nccl-allgather-h100-2node-ib.json", [*NCCL, "--link", "infiniband"], 1),
    ("vllm-h200-rate8-goodput.json", ["--tool", "vllm", "--slo", "ttft:500"], 1),
    ("vllm-h200-inf-conc64.json", ["--tool", "vllm", *H200], 1),
    (
        "vllm-h100-rate2-p99.9.json",
        ["--tool", "vllm", *H200[:1], "NVIDIA H100 80GB HBM3", *H200[2:]],
        1,
    ),
    ("sglang-h200-three-rates.jsonl", SGLANG, 3),
    ("sglang-h200-all-at-once.jsonl", SGLANG, 1),
    ("sglang-h100-rate1.jsonl", SGLANG, 1),
]


def run(path: Path, flags: list[str], out: Path, capsys) -> tuple[int, str, str]:
    code = main([str(path), *flags, "--results", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("name", "flags", "runs"), SAMPLES, ids=[s[0] for s in SAMPLES]
)
def test_real_format_files_are_imported(name, flags, runs, tmp_path, capsys):
    code, out, err = run(FIXTURES / name, flags, tmp_path, capsys)
    assert (code, err) == (0, "")
    assert out.count("accepted as") == runs
    kind = (
        "contributed_collectives" if name.startswith("nccl") else "contributed_serving"
    )
    loaded = load_folder(kind, tmp_path)
    assert len(loaded) == runs
    assert all(d["evidence"] == "measured, contributed" for d in loaded)


def test_the_bench_command_dispatches_import(tmp_path, capsys):
    path = FIXTURES / "vllm-h200-inf-conc64.json"
    code = bench_main(
        ["import", str(path), "--tool", "vllm", *H200, "--results", str(tmp_path)]
    )
    assert code == 0 and "accepted" in capsys.readouterr().out


def test_nccl_mapping_keeps_only_the_algorithm_settings(tmp_path, capsys):
    run(
        FIXTURES / "nccl-allreduce-h200-ring-iter.json",
        [*NCCL, "--link", "nvlink"],
        tmp_path,
        capsys,
    )
    (data,) = load_folder("contributed_collectives", tmp_path)
    assert data["settings"]["nccl_env"] == {"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"}
    assert "do-not-keep" not in json.dumps(data)  # the rest of env is dropped
    assert data["identity"]["nccl_version"] == "2.27.3"
    assert data["device"] == {
        "name": "NVIDIA H200",
        "ranks": 8,
        "hosts": 1,
        "link": "nvlink",
    }
    assert all("p99_us" in row["out_of_place"] for row in data["rows"])


def test_vllm_goodput_is_kept_only_with_its_slos(tmp_path, capsys):
    path = FIXTURES / "vllm-h200-rate8-goodput.json"
    run(path, ["--tool", "vllm"], tmp_path / "a", capsys)
    run(
        path, ["--tool", "vllm", "--slo", "ttft:500", "tpot:50"], tmp_path / "b", capsys
    )
    (without,) = load_folder("contributed_serving", tmp_path / "a")
    (with_slo,) = load_folder("contributed_serving", tmp_path / "b")
    assert "request_goodput" not in without["summary"]
    assert with_slo["settings"]["slo_ms"] == {"ttft": 500.0, "tpot": 50.0}
    assert with_slo["summary"]["request_goodput"] == pytest.approx(7.1)


def test_the_same_file_is_never_imported_twice(tmp_path, capsys):
    path, flags = FIXTURES / "vllm-h200-inf-conc64.json", ["--tool", "vllm", *H200]
    assert run(path, flags, tmp_path, capsys)[0] == 0
    code, _, err = run(path, flags, tmp_path, capsys)
    assert code == 2 and "not replaced" in err


def _edit(name: str, tmp_path: Path, change) -> Path:
    data = json.loads((FIXTURES / name).read_text())
    text = change(data)
    path = tmp_path / f"hostile-{name}"
    path.write_text(text if isinstance(text, str) else json.dumps(data))
    return path


def _nccl_faster(data):  # consistent numbers, impossible speed
    for entry in data["results"]:
        for place in ("out_of_place", "in_place"):
            t = entry[place]
            t["time"] /= 10
            t["alg_bw"] *= 10
            t["bus_bw"] *= 10


def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


HOSTILE_NCCL = [
    (
        "edited busbw",
        _set(["results", 2, "out_of_place", "bus_bw"], 999.0),
        "rows[2].out_of_place.busbw_bytes_per_s",
    ),
    ("beats the link", _nccl_faster, "out_of_place.time_us': impossible"),
    (
        "look-alike letter",
        _set(["config", "devices", 0, "device_info"], "NVIDIA \u041d200"),
        "device.name",
    ),
    (
        "nan time",
        _set(["results", 0, "in_place", "time"], "nan"),
        "results[0].in_place.time",
    ),
    (
        "failed check",
        _set(["results", 1, "out_of_place", "nwrong"], 12.0),
        "results[1].out_of_place.nwrong",
    ),
    ("not a collective", _set(["args", 0], "./build/sendrecv_perf"), "args[0]"),
    (
        "host time",
        _set(["results", 0, "out_of_place"], {"cpu_time": 1.0}),
        "results[0].out_of_place.cpu_time",
    ),
    (
        "invalid number",
        lambda d: json.dumps(d).replace('"time":', '"time":inf,"x":', 1),
        "not valid JSON",
    ),
]


@pytest.mark.parametrize(
    ("what", "change", "named"), HOSTILE_NCCL, ids=[h[0] for h in HOSTILE_NCCL]
)
def test_hostile_nccl_files_are_refused_naming_the_field(
    what, change, named, tmp_path, capsys
):
    path = _edit("nccl-allreduce-h200-nvls.json", tmp_path, change)
    code, out, err = run(path, [*NCCL, "--link", "nvlink"], tmp_path / "out", capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and named in err and "Traceback" not in err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


HOSTILE_VLLM = [
    (
        "throughput edited",
        _set(["request_throughput"], 99.0),
        "summary.request_throughput",
    ),
    ("median above p99", _set(["median_ttft_ms"], 5000.0), "summary.latency_s.ttft"),
    ("bidi in the model", _set(["model_id"], "llama\u202egpt"), "settings.model"),
    ("zero-width device", _set(["device"], "NVIDIA\u200b H200"), "device.name"),
    (
        "NaN latency",
        lambda d: json.dumps(d).replace(
            '"mean_tpot_ms": ', '"mean_tpot_ms": NaN, "x": '
        ),
        "mean_tpot_ms",
    ),
    ("a bool count", _set(["completed"], True), "completed"),
    (
        "no TTFT",
        lambda d: json.dumps({k: v for k, v in d.items() if "ttft" not in k}),
        "mean_ttft_ms",
    ),
    (
        "goodput above throughput",
        _set(["request_goodput"], 50.0),
        "summary.request_goodput",
    ),
]


@pytest.mark.parametrize(
    ("what", "change", "named"), HOSTILE_VLLM, ids=[h[0] for h in HOSTILE_VLLM]
)
def test_hostile_vllm_files_are_refused_naming_the_field(
    what, change, named, tmp_path, capsys
):
    path = _edit("vllm-h200-rate8-goodput.json", tmp_path, change)
    code, out, err = run(
        path, ["--tool", "vllm", "--slo", "ttft:500"], tmp_path / "out", capsys
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and named in err and "Traceback" not in err


def _lines(change):
    def edit(path: Path, tmp_path: Path) -> Path:
        lines = (FIXTURES / path).read_text().splitlines()
        out = tmp_path / "hostile.jsonl"
        out.write_text("\n".join(change(lines)) + "\n")
        return out

    return edit


HOSTILE_SGLANG = [
    (
        "Infinity outside the rate",
        _lines(
            lambda ls: [
                ls[0],
                ls[1].replace('"duration": ', '"duration": Infinity, "x": '),
            ]
        ),
        "line 2: field 'duration'",
    ),
    (
        "a line that is not JSON",
        _lines(lambda ls: [ls[0], "{not json"]),
        "line 2: not valid JSON",
    ),
    (
        "negative latency",
        _lines(lambda ls: [ls[0].replace('"p99_itl_ms": 29.9', '"p99_itl_ms": -1')]),
        "p99_itl_ms",
    ),
    (
        "completed as text",
        _lines(lambda ls: [ls[0].replace('"completed": 400', '"completed": "400"')]),
        "completed",
    ),
    ("deep nesting", _lines(lambda ls: ["[" * 40 + "]" * 40]), "nested more than"),
    ("too many runs", _lines(lambda ls: ls * 30), "more than 64 runs"),
    (
        "a markup backend",
        _lines(
            lambda ls: [
                ls[0].replace('"backend": "sglang"', '"backend": "sglang\\u0007"')
            ]
        ),
        "settings.backend",
    ),
]


@pytest.mark.parametrize(
    ("what", "edit", "named"), HOSTILE_SGLANG, ids=[h[0] for h in HOSTILE_SGLANG]
)
def test_hostile_sglang_files_are_refused_naming_the_field(
    what, edit, named, tmp_path, capsys
):
    path = edit("sglang-h200-three-rates.jsonl", tmp_path)
    code, out, err = run(path, SGLANG, tmp_path / "out", capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and named in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # no run of the file was written


def test_a_file_too_large_or_not_regular_is_refused(tmp_path, capsys):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (16 * 2**20 + 1))
    code, _, err = run(big, ["--tool", "vllm", *H200], tmp_path / "out", capsys)
    assert code == 2 and "larger than" in err
    link = tmp_path / "link.json"
    link.symlink_to(FIXTURES / "vllm-h200-inf-conc64.json")
    code, _, err = run(link, ["--tool", "vllm", *H200], tmp_path / "out", capsys)
    assert code == 2 and "not a regular file" in err


def test_missing_identity_and_bad_flags_are_one_line(tmp_path, capsys):
    path = FIXTURES / "nccl-allreduce-h200-nvls.json"
    code, _, err = run(
        path, ["--tool", "nccl-tests", "--link", "nvlink"], tmp_path, capsys
    )
    assert code == 2 and "--tool-version" in err and err.count("\n") == 1
    vllm = FIXTURES / "vllm-h200-rate8-goodput.json"
    code, _, err = run(vllm, ["--tool", "vllm", "--slo", "ttft:fast"], tmp_path, capsys)
    assert code == 2 and "--slo" in err
    code, _, err = run(
        vllm, ["--tool", "vllm", "--device", "NVIDIA B200"], tmp_path, capsys
    )
    assert code == 2 and "field 'device'" in err  # the file's metadata says H200
