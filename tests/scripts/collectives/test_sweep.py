"""The sweep's bookkeeping with a stand-in launcher: fits, the partial file
an interrupt or a failed rank leaves, and the world-size limit."""

import pytest

from evidence import ResultFileError, validate
from scripts.collectives import launch, sweep

SETTINGS = {
    "backend": "gloo",
    "world_sizes": [2, 3],
    "sizes": [1000, 2000, 4000, 8000],
    "collectives": ["all_reduce"],
    "iters": 1,
    "warmup": 0,
    "timeout_s": 10.0,
    "data_parallel": False,
    "port": 0,
}


def exact_rows(world):
    # t = 10 us + size / 1 GB/s: a fit must recover it exactly
    for size in SETTINGS["sizes"]:
        yield {
            "row": "measurement",
            "collective": "all_reduce",
            "world": world,
            "size": size,
            "seconds": 1e-5 + size / 1e9,
        }


def launcher_from(behaviour):
    calls = []

    def fake(commands, timeout_s):
        calls.append(len(commands))
        return behaviour(len(commands), len(calls))

    return fake


def test_a_complete_run_fits_each_world():
    result = sweep.run(
        SETTINGS, [], launcher_from(lambda world, call: exact_rows(world))
    )
    validate("collectives", result, "test")
    assert result["run_status"] == "complete"
    (fit2, fit3) = result["fits"]
    assert fit2["alpha_s"] == pytest.approx(1e-5) and fit3[
        "beta_s_per_byte"
    ] == pytest.approx(1e-9)
    assert fit2["held_back_sizes"] == [2000] and fit2["held_back_mean_rel_error"] < 1e-9
    busbw = result["measurements"][0]["busbw_bytes_per_s"]
    assert busbw == pytest.approx(
        result["measurements"][0]["algbw_bytes_per_s"]
    )  # 2(n-1)/n = 1


@pytest.mark.parametrize(
    "stop",
    [KeyboardInterrupt, launch.LaunchError("rank 1 failed: x")],
    ids=["interrupt", "rank-failed"],
)
def test_a_stopped_run_leaves_a_valid_partial_result(stop):
    def behaviour(world, call):
        if call == 1:
            yield from exact_rows(world)
        else:
            yield next(exact_rows(world))
            raise stop

    result = sweep.run(SETTINGS, [], launcher_from(behaviour))
    validate("collectives", result, "test")
    assert result["run_status"] == "partial" and result["interrupted"]
    assert len(result["measurements"]) == 4 + 1  # world 2 whole, world 3's first row
    assert [f["world"] for f in result["fits"]] == [2]


def test_the_schema_refuses_a_row_without_its_time():
    result = sweep.run(
        SETTINGS, [], launcher_from(lambda world, call: exact_rows(world))
    )
    del result["measurements"][0]["seconds"]
    with pytest.raises(ResultFileError, match="seconds"):
        validate("collectives", result, "bad.json")


def test_gloo_allows_two_ranks_per_cpu(monkeypatch):
    monkeypatch.setattr(sweep.os, "cpu_count", lambda: 3)
    assert sweep.max_world("gloo") == 6
