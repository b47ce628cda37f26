"""`python -m scripts.bench plan`: a manifest of independent cells, each run
by its own process as a cluster job would, merged by the loader every page
uses into the tables one run gives (issue 51).

The sharded run is real: two tiny CPU cells, each the command a cluster job
runs (called in this process, so torch loads once), beside one ordinary run
of the same two kernels; done once per session.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence.benchmarks import load_results
from scripts.bench.__main__ import main as bench_main
from scripts.bench.plan import cell_command
from scripts.bench.plan import main as plan_main
from tests.helpers.shared import once_per_session, shared_dir

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ["residual_add_relu", "transpose"]


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    base = shared_dir(tmp_path_factory) / "bench-plan"

    def run_all() -> dict:
        base.mkdir()
        manifest = base / "manifest.json"
        code = plan_main([*KERNELS, "--profile", "tiny", "--device", "cpu",
                          "--out", str(manifest)])  # fmt: skip
        cells = json.loads(manifest.read_text())["cells"]
        # Each cell's job is the command a cluster would run, called here
        # in this process: torch is imported once, not once per job.
        codes = [
            bench_main([*cell_command(manifest, c["index"], base / "cells")[3:],
                        "--seed", "5", "--no-progress"])
            for c in cells
        ]  # fmt: skip
        codes.append(
            bench_main([*KERNELS, "--profile", "tiny", "--device", "cpu", "--out",
                        str(base / "one"), "--seed", "5", "--no-progress"])
        )  # fmt: skip
        return {"plan": code, "codes": codes, "cells": len(cells)}

    done = once_per_session(tmp_path_factory, "bench-plan", run_all)
    return base, done


def identity_table(result) -> list[tuple]:
    """What a page's table is made of, without the times (two runs never
    time alike): kernel, shape, dtype, provider, status, labels."""
    return [
        (r["kernel"], r["shape_text"], r["dtype"], r["provider"], r["status"],
         tuple(r["labels"]))
        for r in result.data["rows"]
    ]  # fmt: skip


@pytest.mark.slow
def test_sharded_cells_merge_into_one_runs_tables(sharded):
    base, done = sharded
    assert done["plan"] == 0 and done["codes"] == [0, 0, 0], "a job failed"
    assert done["cells"] == len(KERNELS)
    shards = sorted((base / "cells").glob("*.json"))
    assert len(shards) == 2 and all("-cell" in p.name for p in shards)
    (merged,) = load_results(base / "cells")  # two files, one run
    (single,) = load_results(base / "one")
    assert sorted(identity_table(merged)) == sorted(identity_table(single))
    assert set(merged.data["kernels"]) == set(single.data["kernels"]) == set(KERNELS)
    assert "cell" not in merged.data["identity"]
    merged_kernels = {k: v["sources"] for k, v in merged.data["kernels"].items()}
    assert merged_kernels == {
        k: v["sources"] for k, v in single.data["kernels"].items()
    }


@pytest.mark.slow
def test_one_cell_alone_stays_its_own_file(sharded, tmp_path):
    base, _ = sharded
    first = sorted((base / "cells").glob("*.json"))[0]
    (tmp_path / first.name).write_bytes(first.read_bytes())
    (alone,) = load_results(tmp_path)  # an incomplete plan is not joined
    assert alone.data["identity"]["cell"]["index"] in (0, 1)
    assert len(alone.data["kernels"]) == 1


def test_a_cells_command_is_the_bench_with_its_cell():
    command = cell_command("m.json", 3, "out", python="py")
    assert command[:3] == ["py", "-m", "scripts.bench"]
    assert command[3:9] == ["--manifest", "m.json", "--cell", "3", "--out", "out"]


def test_plan_writes_a_valid_manifest(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert plan_main([*KERNELS, "--profile", "tiny", "--device", "cpu",
                      "--out", str(out)]) == 0  # fmt: skip
    data = json.loads(out.read_text())
    assert [c["index"] for c in data["cells"]] == [0, 1]
    assert {c["kernel"] for c in data["cells"]} == set(KERNELS)
    assert all(c["device_class"] == "cpu" and c["dtype"] for c in data["cells"])
    assert "wrote 2 cells" in capsys.readouterr().out


def test_bad_plans_and_cells_are_one_line(tmp_path, capsys):
    assert plan_main(["no_such_kernel", "--out", str(tmp_path / "m.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    manifest = tmp_path / "m.json"
    plan_main(
        [KERNELS[0], "--profile", "tiny", "--device", "cpu", "--out", str(manifest)]
    )
    capsys.readouterr()
    assert bench_main(["--manifest", str(manifest), "--cell", "7"]) == 2
    err = capsys.readouterr().err
    assert "no cell 7" in err and err.count("\n") == 1
    assert bench_main(["--manifest", str(manifest)]) == 2
    assert "go together" in capsys.readouterr().err
    manifest.write_text('{"cells": "x"}')
    assert bench_main(["--manifest", str(manifest), "--cell", "0"]) == 2
    assert "field" in capsys.readouterr().err
