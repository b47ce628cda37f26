"""The committed compiled artifacts: fresh, well formed, and saying what the
lessons say. Evidence kind: compiled artifact (instructions and resources,
never speed). The tests read the committed files; one test rebuilds the add
kernel to show the builder itself works and is reproducible.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys

import pytest
import triton

from scripts import artifacts
from scripts.artifacts import SPECS, load_build

# ------------------------------------------------------------ freshness


def test_every_artifact_matches_its_kernel_source():
    problems = artifacts.stale_artifacts()
    assert not problems, "\n".join(problems)


def test_a_changed_source_is_reported_as_stale(tmp_path):
    # Known-broken: an artifact whose recorded source hash is not the file's.
    shutil.copytree(artifacts.ARTIFACT_DIR, tmp_path, dirs_exist_ok=True)
    path = artifacts.artifact_path("residual_add_relu", tmp_path)
    record = json.loads(path.read_text())
    record["source_sha256"] = "0" * 64
    path.write_text(json.dumps(record))
    problems = artifacts.stale_artifacts(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith("residual_add_relu:")
    assert "python scripts/artifacts.py residual_add_relu" in problems[0]


def test_a_missing_artifact_is_reported(tmp_path):
    problems = artifacts.stale_artifacts(tmp_path)
    assert len(problems) == len(artifacts.kernels_in_registry())
    assert all("no artifact" in problem for problem in problems)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.kernel}-{s.build}")
def test_spec_matches_its_function(spec):
    # Checked without compiling: the parameters, in order, and their values.
    module = importlib.import_module(f"kernels.{spec.kernel}")
    params = getattr(module, spec.function).arg_names
    assert list(spec.signature) == params
    constexprs = {n for n, t in spec.signature.items() if t == "constexpr"}
    assert constexprs == set(spec.constexprs)
    assert set(spec.aligned) <= set(spec.signature) - constexprs


def test_build_names_are_unique_per_kernel():
    keys = [(spec.kernel, spec.build) for spec in SPECS]
    assert len(keys) == len(set(keys))


# ------------------------------------------------------------ the facts


def test_add_kernel_aligned_uses_128_bit_loads_and_stores():
    # 1024 fp32 elements over 128 threads: 8 per thread per input, which is
    # two 16-byte loads per input and two 16-byte stores.
    sass = load_build("residual_add_relu", "fp32-aligned")["sass_opcodes"]
    assert sass.get("LDG.E.128") == 4
    assert sass.get("STG.E.128") == 2
    assert "LDG.E" not in sass and "STG.E" not in sass


def test_add_kernel_bf16_aligned_uses_128_bit_loads():
    # 8 bf16 per thread per input: exactly one 16-byte load each.
    sass = load_build("residual_add_relu", "bf16-aligned")["sass_opcodes"]
    assert sass.get("LDG.E.128") == 2
    assert sass.get("STG.E.128") == 1


@pytest.mark.parametrize(
    "build", ["fp32-unaligned", "fp32-aligned-pointers-odd-length"]
)
def test_add_kernel_without_full_hints_uses_scalar_loads(build):
    # Without the hint on the pointers, or on the length that the mask is
    # compared against, every element is its own 32-bit load.
    record = load_build("residual_add_relu", build)
    assert record["sass_opcodes"].get("LDG.E") == 16
    assert record["sass_opcodes"].get("STG.E") == 8
    assert not any(".128" in op for op in record["sass_opcodes"])
    assert record["ptx_opcodes"].get("ld.global.b32") == 16


def test_add_kernel_needs_no_shared_memory_and_never_spills():
    for spec in SPECS:
        if spec.kernel != "residual_add_relu":
            continue
        record = load_build(spec.kernel, spec.build)
        assert record["shared_bytes"] == 0, spec.build
        assert record["spill_store_bytes"] == record["spill_load_bytes"] == 0
        assert record["local_bytes"] == 0, spec.build


def test_every_build_records_its_resources():
    for spec in SPECS:
        record = load_build(spec.kernel, spec.build)
        assert record["registers"] > 0, (spec.kernel, spec.build)
        assert len(record["cubin_sha256"]) == 64
        assert record["sass_excerpt"] and record["ptx_excerpt"]


# ------------------------------------------------------------ the parsers


def test_sass_opcode_counts_ignore_predicates():
    lines = ["@!P0 LDG.E.128 R12, desc[UR4][R20.64]", "LDG.E.128 R1, [R2]", "EXIT"]
    assert artifacts._opcode_counts(lines) == {"EXIT": 1, "LDG.E.128": 2}


def test_ptx_statements_skip_directives_labels_and_comments():
    ptx = """
    .reg .b32 %r<5>;   // registers
    $L__BB0_1:
    @%p1 ld.global.v4.b32 { %r1, %r2,
        %r3, %r4 }, [ %rd1 + 0 ];
    { .reg .pred p; mov.u32 %r1, 0; }
    ret;
    """
    assert artifacts._ptx_instructions(ptx) == [
        "ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ]",
        "mov.u32 %r1, 0",
        "ret",
    ]


# ------------------------------------------------------------ the builder


@pytest.mark.slow
def test_builder_rebuilds_the_add_kernel_identically(tmp_path):
    # A fresh Triton cache, so this really compiles (about 5 s on 2 cores).
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TRITON_INTERPRET", None)
    command = [sys.executable, "scripts/artifacts.py", "residual_add_relu"]
    run = subprocess.run(
        [*command, "--out", str(tmp_path)],
        cwd=artifacts.ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    fresh = artifacts.load_artifact("residual_add_relu", tmp_path)
    committed = artifacts.load_artifact("residual_add_relu")
    assert fresh["source_sha256"] == committed["source_sha256"]
    if committed["triton_version"] != triton.__version__:
        pytest.skip("artifacts were built with another Triton version")
    for new, old in zip(fresh["builds"], committed["builds"], strict=True):
        assert new == old, f"build {old['build']} differs from the committed one"


def test_unknown_kernel_name_is_rejected(capsys):
    with pytest.raises(SystemExit):
        artifacts.main(["no_such_kernel"])
    assert "unknown kernels ['no_such_kernel']" in capsys.readouterr().err


def _sass(kernel, build):
    return load_build(kernel, build)["sass_opcodes"]


def test_reduction_reads_128_bits_and_reduces_with_shuffles():
    # 4096 fp32 over 256 threads: 16 per thread, four 16-byte loads each.
    fp32 = _sass("reduction", "fp32-aligned")
    assert fp32.get("LDG.E.128") == 4 and "LDG.E" not in fp32
    assert fp32.get("SHFL.BFLY", 0) > 0  # the tree inside each warp
    assert any(op.startswith("BAR.SYNC") for op in fp32)  # then across warps
    assert fp32.get("STG.E") == 1  # one partial per program
    bf16 = _sass("reduction", "bf16-aligned")
    assert bf16.get("LDG.E.128") == 2


def test_scan_block_scan_uses_warp_shuffles_and_shared_memory():
    record = load_build("scan", "apply-carries-fp32")
    sass = record["sass_opcodes"]
    assert sass.get("SHFL.UP", 0) > 0  # the scan inside each warp
    assert record["shared_bytes"] > 0  # warp totals cross through shared
    assert sass.get("LDG.E.128") == 2 and sass.get("STG.E.128") == 2
    assert sass.get("LDG.E") == 1  # the carry: one scalar load


def test_transpose_tiled_stores_128_bits_and_naive_does_not():
    naive = load_build("transpose", "naive-fp32")
    tiled = load_build("transpose", "tiled-fp32")
    assert not any(op.startswith("STG.E.") for op in naive["sass_opcodes"])
    assert naive["sass_opcodes"].get("STG.E", 0) > 0
    assert tiled["sass_opcodes"].get("STG.E.128", 0) > 0
    assert tiled["sass_opcodes"].get("LDG.E.128", 0) > 0
    # The 64 x 64 fp32 tile is staged through shared memory.
    assert tiled["shared_bytes"] == 64 * 64 * 4


@pytest.mark.parametrize("kernel", ["reduction", "scan", "transpose"])
def test_memory_bound_kernels_never_spill(kernel):
    for record in artifacts.load_artifact(kernel)["builds"]:
        assert record["spill_store_bytes"] == 0, record["build"]
        assert record["spill_load_bytes"] == 0, record["build"]
        assert record["local_bytes"] == 0, record["build"]
