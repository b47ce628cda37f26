"""scripts/artifacts/gluon.py: the Gluon matmul's committed artifacts are
fresh, valid and rebuild identically, and the TTGIR layouts are read right.
Evidence kind: compiled artifact."""

import json
import subprocess
import sys

import pytest

import evidence
from scripts.artifacts import gluon as builder

TARGETS = list(builder.GLUON_TARGETS)


def _committed(target, folder=builder.OUT):
    return evidence.read("artifact", folder / f"matmul.{target}.json").data


@pytest.mark.parametrize(
    "folder",
    [builder.OUT, builder.OUT / "triton-3.6"],
    ids=["triton-3.8", "triton-3.6"],
)
@pytest.mark.parametrize("target", TARGETS)
def test_committed_artifacts_match_the_kernel_source(target, folder):
    artifact = _committed(target, folder)
    source = evidence.ROOT / builder.SOURCE
    assert artifact["source_sha256"] == evidence.sha256_file(source), (
        f"kernels/matmul/gluon.py changed: rerun `{builder.PROG}`"
        + (
            " with Triton 3.6 --out results/artifacts/gluon/triton-3.6"
            if folder != builder.OUT
            else ""
        )
    )
    assert artifact["target"] == target
    assert artifact["triton_version"].startswith(
        "3.6." if folder != builder.OUT else "3.8."
    )


def test_the_layout_file_matches_the_source_too():
    data = json.loads((builder.OUT / "layouts.json").read_text(encoding="utf-8"))
    assert data["source_sha256"] == evidence.sha256_file(evidence.ROOT / builder.SOURCE)
    assert set(data["targets"]) == set(TARGETS)


def test_the_hopper_build_rebuilds_identically():
    """The builder is reproducible: same cubin, same facts (about 2 s)."""
    compiled = builder.compile_gluon("sm_90a")
    fresh = builder.gluon_record("sm_90a", compiled)
    (kept,) = _committed("sm_90a")["builds"]
    assert fresh == kept


def test_the_blackwell_build_is_split_into_three_partitions():
    (record,) = _committed("sm_100a")["builds"]
    parts = record["partitions"]
    assert [p["warps"] for p in parts] == [None, 1, 1]
    assert parts[1]["tma_copies"] == 2  # the loader: A and B
    assert parts[2]["products_a"] == ["shared"]  # the MMA warp reads A from smem
    assert any(op.startswith("setmaxnreg") for op in record["ptx_opcodes"])


def test_the_hopper_loop_keeps_one_wgmma_group_in_flight():
    (record,) = _committed("sm_90a")["builds"]
    waits = [w for loop in record["sass_loops"] for w in loop["waits"]]
    assert "WARPGROUP.DEPBAR.LE gsb0, 0x1" in waits
    assert "partitions" not in record  # one instruction stream


def test_ttgir_layouts_keep_layouts_and_drop_locations():
    ttgir = (
        '#loc1 = loc("a_desc")\n'
        "#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0}>\n"
        "#smem = #ttg.shared_memory\n"
        "module {\n}\n"
    )
    assert builder.ttgir_layouts(ttgir) == {
        "mma": "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0}>",
        "smem": "#ttg.shared_memory",
    }


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "scripts.artifacts.gluon", *args],
        capture_output=True,
        text=True,
        cwd=evidence.ROOT,
        timeout=600,  # a hang guard only: a busy machine compiles slowly
    )


def test_a_folder_for_another_triton_is_refused_in_one_line(tmp_path):
    done = _cli("--out", str(tmp_path / "triton-3.6"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "holds Triton 3.6 artifacts" in done.stderr
    assert not (tmp_path / "triton-3.6").exists()


def test_an_out_path_that_is_a_file_is_refused_in_one_line(tmp_path):
    target = tmp_path / "file.json"
    target.write_text("{}")
    done = _cli("--out", str(target))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
