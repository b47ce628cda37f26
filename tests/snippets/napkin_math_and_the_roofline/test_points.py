"""The catalog points: every kernel shape placed by its cost model."""

import json

import pytest

from kernels.devices import H200
from snippets.napkin_math_and_the_roofline import points as rl


def test_every_catalog_shape_is_a_point():
    costs = rl.kernel_costs()
    rows = rl.points()
    assert len(rows) == sum(len(e["points"]) for e in costs.values())
    catalog = json.loads((rl.ROOT / "results" / "kernels.json").read_text())
    assert set(costs) == set(catalog["kernels"])
    for name, entry in catalog["kernels"].items():
        texts = [s["text"] for s in entry["shapes"]["cuda"]["full"]]
        assert [p["shape"] for p in costs[name]["points"]] == texts
    residual = rl.point("residual_add_relu")
    assert residual["bytes"] == 3 * 2 * 32768 * 4096  # two reads, one write, bf16
    assert residual["floor_s"] == residual["bytes"] / H200.hbm_bytes_per_s
    assert rl.floor_us("residual_add_relu") == round(residual["floor_s"] * 1e6, 1)
    assert rl.point("matmul")["bound"] == "compute-bound"
    with pytest.raises(KeyError):
        rl.point("nope")


def test_table_has_one_row_per_kernel():
    table = rl.points_table().splitlines()
    assert len(table) == 2 + len(rl.kernel_costs())
    facts = rl.facts()
    assert facts["count.kernels"] == str(len(rl.kernel_costs()))
    assert int(facts["count.memory-bound"]) < int(facts["count.shapes"])


def test_the_fp32_roof_counts_an_fma_as_two():
    facts = rl.facts()
    assert facts["h200.fp32"] == "67 TFLOP/s"
    assert facts["h200.fp32-non-fma"] == "33.5 T op/s"
    assert facts["ridge.fp32-non-fma"] == "6.98 op/B"
    # 32.1 us against 2.17 us: the fp32 floor is not "a few microseconds".
    assert facts["exercise.fp32-over-bf16"] == "15×"


def test_exercise_flips_bound_with_the_roof():
    answer = rl.exercise()
    assert answer["bf16"][0] == "compute-bound"
    assert answer["fp8"][0] == "memory-bound"  # same bytes, twice the rate
    flops = 2 * 1024**3
    assert answer["fp32"][1] == pytest.approx(flops / H200.fp32_flop_per_s)
    assert "fp8: memory-bound" in rl.fmt_exercise_answer()


def _bench(tmp_path, kind, rows):
    data = {
        "identity": {"device_kind": kind, "started_utc": "2026-12-01T00:00:00Z"},
        "device": {"name": "NVIDIA H200"},
        "rows": rows,
    }
    (tmp_path / f"{kind}.json").write_text(json.dumps(data))


def test_measured_points_only_from_gpu_rows(tmp_path):
    row = {
        "kernel": "matmul",
        "shape_text": "8192×8192×8192",
        "provider": "triton",
        "status": "ok",
        "timed": True,
        "plausible": True,
        "flops": 2 * 8192**3,
        "bytes_moved": 3 * 2 * 8192**2,
        "median_ms": 1.5,
    }
    _bench(tmp_path, "cpu", [row])
    assert rl.measured_points(tmp_path) == []
    _bench(tmp_path, "cuda", [row, {**row, "plausible": False}])
    (found,) = rl.measured_points(tmp_path)
    assert found["flop_per_s"] == pytest.approx(2 * 8192**3 / 1.5e-3)
    assert found["device"] == "NVIDIA H200"


def test_no_gpu_result_today():
    assert rl.measured_points() == []
    assert "predictions only" in rl.measured_text()


def test_kernel_facts_are_keyed_by_kernel_and_shape():
    facts = rl.facts()
    quick = rl.point("residual_add_relu")
    assert facts["residual_add_relu.shape"] == quick["shape"]
    key = "matmul." + rl.shape_key("1024×1024×1024")
    assert key == "matmul.1024x1024x1024"
    assert facts[key + ".intensity"] == "341 FLOP/B"  # 2*1024^3 / (3*1024^2*2)
