import json

import pytest

from snippets.when_torch_compile_is_enough import spread


def test_overlapping_bands_are_a_tie_whatever_the_medians():
    assert spread.faster((1.0, 0.9, 1.1), (2.0, 1.9, 2.1)) == "eager"
    assert spread.faster((2.0, 1.9, 2.1), (1.0, 0.9, 1.1)) == "compile"
    assert spread.faster((1.0, 0.8, 1.3), (1.1, 0.9, 1.2)) == "tie"


def write_run(folder, name, kind, eager, compiled, shape="8×8"):
    rows = [
        {
            "timed": True,
            "provider": p,
            "shape_text": shape,
            "median_ms": m,
            "p20_ms": lo,
            "p80_ms": hi,
        }
        for p, (m, lo, hi) in (("eager", eager), ("compile", compiled))
    ]
    data = {"identity": {"device_kind": kind}, "rows": rows}
    (folder / f"{name}-compare-x.json").write_text(json.dumps(data))


def test_a_flip_inside_the_noise_is_found(tmp_path):
    write_run(tmp_path, "1", "cpu", (1.0, 0.8, 1.3), (1.1, 0.9, 1.2))
    write_run(tmp_path, "2", "cpu", (1.2, 0.9, 1.3), (1.1, 0.9, 1.2))
    found = spread.runs(tmp_path)
    assert spread.median_order_flips(found) == ["8×8"]
    assert spread.verdicts(found) == {"8×8": ["tie", "tie"]}
    assert spread.exercise_answer(tmp_path).startswith("none")


def test_gpu_runs_are_never_pooled_with_cpu_runs(tmp_path):
    write_run(tmp_path, "1", "cpu", (1.0, 0.9, 1.1), (2.0, 1.9, 2.1))
    write_run(tmp_path, "2", "cuda", (2.0, 1.9, 2.1), (1.0, 0.9, 1.1))
    assert [r["name"] for r in spread.runs(tmp_path)] == ["1-compare-x.json"]
    assert spread.verdicts(spread.runs(tmp_path, gpu=True)) == {"8×8": ["compile"]}
    assert spread.fmt_spread("gpu_runs", tmp_path) == "1"
    empty = tmp_path / "none"
    empty.mkdir()
    assert "No GPU comparison" in spread.runs_table(empty, gpu=True)


def test_the_committed_runs_agree_with_the_page():
    found = spread.runs()
    assert len(found) == int(spread.fmt_spread("runs")) >= 2
    table = spread.runs_table()
    assert table.count("\n") == 2 + sum(len(r["timings"]) for r in found)


@pytest.mark.parametrize("field", ["runs", "gpu_runs", "flips", "steady"])
def test_every_prose_fact_is_computed(field):
    assert spread.fmt_spread(field)
