"""The committed compiled artifacts: fresh, well formed, built with the
configs the descriptors give, and saying what the lessons say. Evidence kind:
compiled artifact (instructions and resources, never speed). The tests read
the committed files; one test rebuilds the add kernel to show the builder
itself works and is reproducible.
"""

import dataclasses
import json
import os
import shutil
import subprocess
import sys

import pytest
import torch
import triton

import evidence
from evidence import artifacts as reader
from kernels.descriptor import Launch, discover, kernel_module
from scripts.artifacts import build as artifacts

DESCRIPTORS = discover()


def load_build(kernel, build, folder=None, target=reader.TARGET):
    """One build's record, read by the one artifact reader."""
    path = reader.artifact_path(kernel, folder=folder, target=target)
    return reader.build(kernel, build, path)


PLANS = [plan for d in DESCRIPTORS.values() for plan in artifacts.plans(d)]


def _plan_id(plan):
    return f"{plan.kernel}-{plan.build.build}"


def _first_record(plan):
    """The plan's record in the first target it is built for (sm_120a's own
    tiles are built for sm_120a only)."""
    target = next(t for t in artifacts.TARGETS if plan.build.built_for(t))
    return load_build(plan.kernel, plan.build.build, target=target)


# ------------------------------------------------------------ freshness


def test_every_artifact_matches_its_kernel_source():
    problems = artifacts.stale_artifacts()
    assert not problems, "\n".join(problems)


def test_a_changed_source_is_reported_as_stale(tmp_path):
    # Known-broken: an artifact whose recorded source hash is not the file's.
    shutil.copytree(artifacts.ARTIFACT_DIR, tmp_path, dirs_exist_ok=True)
    path = reader.artifact_path("residual_add_relu", folder=tmp_path)
    record = json.loads(path.read_text())
    record["source_sha256"] = "0" * 64
    path.write_text(json.dumps(record))
    problems = artifacts.stale_artifacts(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith("residual_add_relu:")
    assert "python -m scripts.artifacts residual_add_relu" in problems[0]


def test_a_changed_launch_config_is_reported_as_stale():
    # Known-broken: the descriptor now asks for another tile than the one
    # compiled (say a config that lives outside the kernel's file changed).
    add = DESCRIPTORS["residual_add_relu"]
    other = Launch("residual_add_relu_v1_kernel", {"BLOCK_SIZE": 2048}, num_warps=8)

    def config(dtype, rows, cols, version=2):  # version 1's tile changed, not 2's
        return [other] if version == 1 else add.configure(dtype, rows, cols)

    changed = dataclasses.replace(add, configure=config)
    problems = artifacts.stale_artifacts(
        descriptors={add.name: changed}, targets=[artifacts.TARGET_ARCH]
    )
    v1_builds = [b for b in add.artifact_builds if b.shape.get("version") == 1]
    assert len(problems) == len(v1_builds) == 4
    assert all("launch" in p and "constexprs" in p for p in problems)
    assert problems[0].startswith("residual_add_relu/fp32-aligned:")


def test_a_missing_artifact_is_reported(tmp_path):
    problems = artifacts.stale_artifacts(tmp_path)
    kernels = artifacts.built_kernels(DESCRIPTORS)
    assert len(problems) == len(kernels) * len(artifacts.TARGETS)
    assert all("no artifact" in problem for problem in problems)


def test_an_artifact_for_another_target_is_reported(tmp_path):
    # Known-broken: an sm_90a build copied under the sm_120a name.
    shutil.copytree(artifacts.ARTIFACT_DIR, tmp_path, dirs_exist_ok=True)
    hopper = reader.artifact_path("scan", folder=tmp_path, target="sm_90a")
    shutil.copy(hopper, reader.artifact_path("scan", folder=tmp_path, target="sm_120a"))
    problems = artifacts.stale_artifacts(tmp_path)
    assert problems == [
        "scan: scan.sm_120a.json holds sm_90a; rebuild with "
        "`python -m scripts.artifacts scan --target sm_120a`"
    ]


def test_every_committed_artifact_belongs_to_a_descriptor():
    committed = sorted(p.name for p in artifacts.ARTIFACT_DIR.glob("*.json"))
    wanted = sorted(
        reader.artifact_path(k, target=target).name
        for k in artifacts.built_kernels(DESCRIPTORS)
        for target in artifacts.TARGETS
    )
    assert committed == wanted


@pytest.mark.parametrize("plan", PLANS, ids=_plan_id)
def test_plan_matches_its_function(plan):
    # Checked without compiling: the parameters, in order, and their values.
    module = kernel_module(plan.kernel)
    params = getattr(module, plan.launch.kernel).arg_names
    assert list(plan.signature) == params
    constexprs = {n for n, t in plan.signature.items() if t == "constexpr"}
    assert constexprs == set(plan.constexprs)
    assert set(plan.build.aligned) <= set(plan.signature) - constexprs


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(signature={"x_ptr": "*fp32"}), "no type or value for"),
        (dict(fixed={"n_elements": 16}), "both typed and constexpr"),
        (dict(aligned=("BLOCK_SIZE",)), "must be runtime args"),
        (dict(launch=1), "launch_config gives 1 launch"),
        (dict(dtype="float99"), "not a torch dtype"),
    ],
    ids=["untyped-args", "typed-and-fixed", "aligned-constexpr", "no-launch", "dtype"],
)
def test_a_build_the_descriptor_cannot_give_is_refused(change, words):
    # Known-broken builds: refused before anything compiles, naming the build.
    add = DESCRIPTORS["residual_add_relu"]
    broken = dataclasses.replace(add.artifact_builds[0], **change)
    with pytest.raises(artifacts.BuildError, match=words) as error:
        artifacts.plan(add, broken)
    assert str(error.value).startswith("residual_add_relu/fp32-aligned:")


def test_build_names_are_unique_per_kernel():
    keys = [(plan.kernel, plan.build.build) for plan in PLANS]
    assert len(keys) == len(set(keys))


# ------------------------------------------------------------ the format


@pytest.mark.parametrize(
    "path",
    sorted(artifacts.ARTIFACT_DIR.glob("*.json")),
    ids=lambda p: p.name.removesuffix(".json"),
)
def test_every_committed_file_validates_against_the_schema(path):
    data = evidence.read("artifact", path).data
    assert path.name == f"{data['kernel']}.{data['target']}.json"
    assert data["schema"] == artifacts.SCHEMA
    for record in data["builds"]:
        # What the schema cannot say: a value for every constexpr parameter,
        # made of the launch's constexprs and the build's fixed ones.
        typed = {n for n, t in record["signature"].items() if t == "constexpr"}
        assert typed == set(record["constexprs"]), record["build"]
        launch = record["launch"]
        assert record["constexprs"] == {**launch["constexprs"], **record["fixed"]}
        assert record["function"] == launch["kernel"]
        assert record["num_warps"] == launch["num_warps"]
        # A launch without num_stages compiles with Triton's default, 3.
        assert record["num_stages"] == launch.get("num_stages", 3)


@pytest.mark.parametrize("plan", PLANS, ids=_plan_id)
def test_every_build_records_the_config_its_descriptor_gives_today(plan):
    record = _first_record(plan)
    dtype = getattr(torch, record["dtype"])
    descriptor = DESCRIPTORS[plan.kernel]
    launches = descriptor.launch_config(dtype, record["shape"])
    assert record["launch"] == launches[record["launch_index"]].record()
    assert record["fixed"] == dict(plan.build.fixed)
    assert record["aligned"] == list(plan.build.aligned)


def test_a_malformed_artifact_fails_naming_file_and_field(tmp_path):
    # Known-broken: a build whose register count is not a number.
    record = reader.read_artifact("residual_add_relu")
    record["builds"][1]["registers"] = "many"
    path = tmp_path / "residual_add_relu.sm_90a.json"
    with pytest.raises(evidence.ResultFileError, match=r"builds\[1\]\.registers"):
        evidence.write("artifact", path, record)  # refused on write...
    assert not path.exists()
    path.write_text(json.dumps(record))
    with pytest.raises(evidence.ResultFileError, match=r"builds\[1\]\.registers"):
        reader.read_artifact("residual_add_relu", tmp_path)  # ...and on read
    problems = artifacts.stale_artifacts(
        tmp_path,
        {"residual_add_relu": DESCRIPTORS["residual_add_relu"]},
        targets=[artifacts.TARGET_ARCH],
    )
    assert len(problems) == 1 and "registers" in problems[0]


def test_the_snippet_fixture_is_a_valid_artifact():
    # tests/snippets/lib/fixtures/matmul.sm_90a.json stands in for a
    # real artifact; it must keep the real format.
    fixture = evidence.ROOT / "tests/snippets/lib/fixtures/matmul.sm_90a.json"
    evidence.read("artifact", fixture)


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
    for record in reader.read_artifact("residual_add_relu")["builds"]:
        assert record["shared_bytes"] == 0, record["build"]
        assert record["spill_store_bytes"] == record["spill_load_bytes"] == 0
        assert record["local_bytes"] == 0, record["build"]


def test_every_build_records_its_resources():
    for plan in PLANS:
        record = _first_record(plan)
        assert record["registers"] > 0, (plan.kernel, plan.build.build)
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
    command = [sys.executable, "-m", "scripts.artifacts", "residual_add_relu"]
    # Two builds, one of each version: enough to show the builder is
    # deterministic, at a third of the compile time of all of them.
    builds = ["fp32-aligned", "v2-main-fp32-odd-length"]
    run = subprocess.run(
        [*command, "--out", str(tmp_path), *(f"--build={b}" for b in builds)],
        cwd=artifacts.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: a busy machine compiles slowly
    )
    assert run.returncode == 0, run.stderr
    fresh = reader.read_artifact("residual_add_relu", tmp_path)
    committed = reader.read_artifact("residual_add_relu")
    assert fresh["source_sha256"] == committed["source_sha256"]
    if committed["triton_version"] != triton.__version__:
        pytest.skip("artifacts were built with another Triton version")
    assert [b["build"] for b in fresh["builds"]] == builds
    by_name = {b["build"]: b for b in committed["builds"]}
    for new in fresh["builds"]:
        assert new == by_name[new["build"]], f"build {new['build']} differs"


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
    for record in reader.read_artifact(kernel)["builds"]:
        assert record["spill_store_bytes"] == 0, record["build"]
        assert record["spill_load_bytes"] == 0, record["build"]
        assert record["local_bytes"] == 0, record["build"]


# ------------------------------------------------ matmul, softmax, attention


def _assert_no_spills(record):
    assert record["spill_store_bytes"] == 0, record["build"]
    assert record["spill_load_bytes"] == 0, record["build"]
    assert record["local_bytes"] == 0, record["build"]


def test_matmul_artifacts_are_built_with_the_launcher_configs():
    import kernels.matmul.versions as mm

    builds = {
        "bf16-aligned": torch.bfloat16,
        "fp16-aligned": torch.float16,
        "fp32-aligned": torch.float32,
    }
    for build, dtype in builds.items():
        record, config = load_build("matmul", build), mm.CONFIGS[dtype]
        for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"):
            assert record["constexprs"][name] == getattr(config, name), (build, name)
        assert record["num_warps"] == config.num_warps, build
        assert record["num_stages"] == config.num_stages, build
        assert record["constexprs"]["DOT_PRECISION"] == mm.DOT_PRECISION[dtype]
        assert record["constexprs"]["INTERPRETED"] is False


@pytest.mark.parametrize(
    "build, sass_op, ptx_types",
    [
        ("bf16-aligned", "HGMMA.64x256x16.F32.BF16", "f32.bf16.bf16"),
        ("fp16-aligned", "HGMMA.64x256x16.F32", "f32.f16.f16"),
    ],
)
def test_matmul_16_bit_uses_hopper_warpgroup_mma(build, sass_op, ptx_types):
    record = load_build("matmul", build)
    sass, ptx = record["sass_opcodes"], record["ptx_opcodes"]
    tile = record["constexprs"]
    # Two warpgroups of 4 warps each own 64 of the 128 rows; one wgmma covers
    # 64 x 256 x 16, so a 64-deep K step takes four, issued once in the loop.
    assert record["num_warps"] == 8 and tile["BLOCK_M"] == 2 * 64
    k_steps = tile["BLOCK_K"] // 16
    assert sass.get(sass_op) == k_steps
    assert ptx.get(f"wgmma.mma_async.sync.aligned.m64n256k16.{ptx_types}") == k_steps
    assert not any(op.startswith("HMMA") for op in sass)  # not Ampere's mma
    # Operands reach shared memory by 16-byte asynchronous copies (cp.async,
    # LDGSTS), three stages of an A tile and a B tile.
    assert sass.get("LDGSTS.E.BYPASS.128", 0) > 0
    stage_bytes = (tile["BLOCK_M"] + tile["BLOCK_N"]) * tile["BLOCK_K"] * 2
    assert record["shared_bytes"] == record["num_stages"] * stage_bytes
    assert sass.get("STG.E.128", 0) > 0
    _assert_no_spills(record)


def test_matmul_fp32_runs_on_fma_units_not_tensor_cores():
    record = load_build("matmul", "fp32-aligned")
    sass, tile = record["sass_opcodes"], record["constexprs"]
    # No HGMMA (Hopper) or HMMA (Ampere) matrix op. HFMA2.MMA, if present,
    # is an ordinary FMA issued on another pipe, not a tensor core op.
    assert not any(op.startswith(("HGMMA", "HMMA")) for op in sass)
    # IEEE float32: every multiply-add of a K step is an FFMA, spread over
    # the 128 threads.
    threads = 32 * record["num_warps"]
    fmas = tile["BLOCK_M"] * tile["BLOCK_N"] * tile["BLOCK_K"] // threads
    assert sass.get("FFMA") == fmas
    _assert_no_spills(record)


def test_matmul_without_alignment_hints_loads_one_element_at_a_time():
    record = load_build("matmul", "bf16-unaligned")
    sass, tile = record["sass_opcodes"], record["constexprs"]
    # Still wgmma, but fed by 2-byte loads through registers: no cp.async,
    # a single shared-memory stage, and the register file overflows.
    assert sass.get("HGMMA.64x256x16.F32.BF16") == tile["BLOCK_K"] // 16
    assert sass.get("LDG.E.U16", 0) > 0
    wide_global = ("LDGSTS", "LDG.E.128", "STG.E.128")
    assert not any(op.startswith(wide_global) for op in sass)
    stage_bytes = (tile["BLOCK_M"] + tile["BLOCK_N"]) * tile["BLOCK_K"] * 2
    assert record["shared_bytes"] == stage_bytes
    assert record["spill_store_bytes"] > 0


def test_softmax_artifacts_are_built_with_the_launcher_configs():
    import kernels.softmax.versions as sm

    widest = load_build("softmax", "v1-bf16-16384")
    assert widest["constexprs"]["BLOCK"] == sm.FUSED_MAX_BLOCK
    assert widest["num_warps"] == sm.fused_num_warps(sm.FUSED_MAX_BLOCK)
    fused = load_build("softmax", "v1-fp32-4096")
    assert fused["num_warps"] == sm.fused_num_warps(fused["constexprs"]["BLOCK"])
    online = load_build("softmax", "v2-bf16-4096")
    assert online["constexprs"]["BLOCK"] == sm.ONLINE_BLOCK
    assert online["num_warps"] == sm.ONLINE_WARPS


@pytest.mark.parametrize(
    "build, itemsize, loops",
    [("v1-fp32-4096", 4, 1), ("v1-bf16-16384", 2, 1), ("v2-bf16-4096", 2, 2)],
)
def test_softmax_moves_16_bytes_per_access_and_never_spills(build, itemsize, loops):
    record = load_build("softmax", build)
    sass = record["sass_opcodes"]
    threads = 32 * record["num_warps"]
    bytes_per_thread = record["constexprs"]["BLOCK"] // threads * itemsize
    # One 128-bit load per 16 bytes a thread holds, in each pass over x;
    # one 128-bit store per 16 bytes in the single writing pass.
    assert sass.get("LDG.E.128") == loops * bytes_per_thread // 16
    assert sass.get("STG.E.128") == bytes_per_thread // 16
    assert sass.get("MUFU.EX2", 0) > 0  # exp is computed as exp2
    _assert_no_spills(record)


@pytest.mark.parametrize("target", artifacts.TARGETS)
def test_attention_artifacts_are_built_with_the_launcher_configs(target):
    import kernels.attention.versions as at

    picks = {
        "attention_v1_kernel": lambda dtype, D, target: at.config_for(dtype, D),
        "attention_v2_kernel": lambda dtype, D, target: at.config_v2_for(dtype, D),
        "attention_v3_kernel": at.config_v3_for,
        "attention_v4_kernel": at.config_v3_for,
    }
    data = reader.read_artifact("attention", artifacts.ARTIFACT_DIR, target)
    for record in data["builds"]:
        dtype = getattr(torch, record["dtype"])
        shape = record["shape"]
        config = picks[record["function"]](dtype, shape["D"], shape.get("target"))
        assert record["constexprs"]["BLOCK_M"] == config.BLOCK_M, record["build"]
        assert record["constexprs"]["BLOCK_N"] == config.BLOCK_N, record["build"]
        assert record["num_warps"] == config.num_warps, record["build"]
        assert record["num_stages"] == config.num_stages, record["build"]


def test_attention_v3_and_v4_do_not_spill_on_sm_120a_with_its_own_tiles():
    # The tiles the launcher picks on an RTX 50-class part: both products on
    # mma.sync, no spill. Hopper's 128 x 128 tiles, kept as a record, do
    # spill there: the same check fails on them.
    data = reader.read_artifact("attention", artifacts.ARTIFACT_DIR, "sm_120a")
    own = [r for r in data["builds"] if r["shape"].get("target") == "sm_120a"]
    assert {r["function"] for r in own} == {
        "attention_v3_kernel",
        "attention_v4_kernel",
    }
    for record in own:
        assert (
            record["sass_opcodes"].get("HMMA.16816.F32.BF16", 0)
            + record["sass_opcodes"].get("HMMA.16816.F32", 0)
            > 0
        ), record["build"]
        _assert_no_spills(record)
    hopper = load_build("attention", "v3-bf16-d128-tma-hopper-tiles", target="sm_120a")
    assert hopper["constexprs"]["BLOCK_N"] == 128
    with pytest.raises(AssertionError, match="hopper-tiles"):
        _assert_no_spills(hopper)


def test_attention_never_spills():
    records = reader.read_artifact("attention")["builds"]
    assert {r["build"] for r in records} >= {"bf16-d128", "fp32-d128"}
    for record in records:
        _assert_no_spills(record)


def test_attention_16_bit_runs_both_products_on_warpgroup_mma():
    for record in reader.read_artifact("attention")["builds"]:
        ptx, tile = record["ptx_opcodes"], record["constexprs"]
        wgmma = [op for op in ptx if op.startswith("wgmma.mma_async")]
        if record["build"].startswith("fp32"):
            assert not wgmma, record["build"]
            continue
        # q k^T: (BLOCK_M x BLOCK_D) by (BLOCK_D x BLOCK_N); p v: (BLOCK_M x
        # BLOCK_N) by (BLOCK_N x BLOCK_D). Each shows up as a wgmma shape.
        shapes = {op.split(".")[4] for op in wgmma}
        assert f"m64n{tile['BLOCK_N']}k16" in shapes, record["build"]
        assert f"m64n{tile['BLOCK_D']}k16" in shapes, record["build"]
        # Shared memory: q once, plus k and v tiles for every pipeline stage.
        kv_tiles = 2 * tile["BLOCK_N"] * record["num_stages"]
        smem = (tile["BLOCK_M"] + kv_tiles) * tile["BLOCK_D"] * 2
        if record["function"] in ("attention_v3_kernel", "attention_v4_kernel"):
            smem += 1024  # the TMA copies' mbarriers, in a 1 KiB-aligned block
        if record["function"] == "attention_v4_kernel":
            # The next block's K tile, held while this block's V is used.
            smem += tile["BLOCK_N"] * tile["BLOCK_D"] * 2
        assert record["shared_bytes"] == smem, record["build"]


def test_the_second_tritons_artifacts_are_current_too():
    # The GPU machine compiles with Triton 3.6; its artifacts are rebuilt with
    # `make artifacts-triton36` whenever a kernel changes.
    assert artifacts.stale_artifacts(artifacts.SECOND_DIR) == []
    for path in sorted(artifacts.SECOND_DIR.glob("*.json")):
        data = evidence.read("artifact", path).data
        assert data["triton_version"].startswith(artifacts.SECOND_TRITON + ".")


def test_a_folder_named_for_another_triton_is_refused(tmp_path, capsys):
    folder = tmp_path / "triton-2.9"
    assert artifacts.main([f"--out={folder}", "reduction"]) == 2
    assert "holds Triton 2.9 artifacts" in capsys.readouterr().err
    assert not folder.exists()


# ------------------------------------- issue 19's new versions, both Tritons

BOTH_TRITONS = pytest.mark.parametrize(
    "folder",
    [artifacts.ARTIFACT_DIR, artifacts.SECOND_DIR],
    ids=["triton-3.8", f"triton-{artifacts.SECOND_TRITON}"],
)


def _ops(kernel, build, folder):
    return load_build(kernel, build, folder)["sass_opcodes"]


@BOTH_TRITONS
def test_main_launches_keep_128_bit_accesses_on_odd_lengths(folder):
    # Version 2's main launches cover whole blocks with no mask, so an odd
    # length still gets LDG.E.128/STG.E.128; only the tail is scalar.
    wide = {
        ("residual_add_relu", "v2-main-fp32-odd-length"): (4, 2),
        ("residual_add_relu", "v2-main-bf16-odd-length"): (2, 1),
        ("reduction", "v2-persistent-fp32-odd-length"): (4, 0),
        ("reduction", "v2-persistent-bf16-odd-length"): (2, 0),
        ("scan", "single-pass-fp32"): (4, 4),
        ("scan", "single-pass-bf16"): (2, 2),
    }
    for (kernel, build), (loads, stores) in wide.items():
        sass = _ops(kernel, build, folder)
        assert sass.get("LDG.E.128") == loads, (kernel, build)
        assert sass.get("STG.E.128", 0) == stores, (kernel, build)
        assert "LDG.E" not in sass, (kernel, build)
        _assert_no_spills(load_build(kernel, build, folder))
    # The one-program tails: a 32-bit access per element.
    for kernel, build in [
        ("residual_add_relu", "v2-tail-fp32-odd-length"),
        ("scan", "single-pass-tail-fp32"),
    ]:
        sass = _ops(kernel, build, folder)
        assert sass.get("LDG.E", 0) > 0 and "LDG.E.128" not in sass, build
    # The add's tail: 1024 elements over 128 threads, 8 from each input.
    assert _ops("residual_add_relu", "v2-tail-fp32-odd-length", folder)["LDG.E"] == 16


@BOTH_TRITONS
def test_single_pass_scan_takes_a_ticket_and_publishes_atomically(folder):
    sass = _ops("scan", "single-pass-fp32", folder)
    assert sass.get("ATOMG.E.ADD.STRONG.GPU") == 1  # the ticket
    assert sass.get("ATOMG.E.EXCH.64.STRONG.GPU") == 2  # total, then prefix
    # The look-back's atomic read of a state word: an add of 0 with acquire
    # order compiles to one strong 64-bit load, issued by one thread, whose
    # value reaches the block through shared memory.
    assert sass.get("LDG.E.64.STRONG.GPU") == 1
    assert sass.get("STS.64", 0) >= 1 and sass.get("LDS.64", 0) >= 1
    assert sass.get("SHFL.UP", 0) > 0  # the scan inside each warp


@BOTH_TRITONS
def test_persistent_sum_loops_over_blocks(folder):
    record = load_build("reduction", "v2-persistent-fp32-odd-length", folder)
    # A loop: more branches than version 1's single exit test.
    v1 = _ops("reduction", "fp32-aligned", folder)
    assert record["sass_opcodes"]["BRA"] > v1["BRA"]


@BOTH_TRITONS
@pytest.mark.parametrize(
    "build, hgmma",
    [
        ("v2-bf16-tma-persistent", "HGMMA.64x256x16.F32.BF16"),
        ("v2-fp16-tma-persistent", "HGMMA.64x256x16.F32"),
        ("v2-bf16-tma-small", "HGMMA.64x128x16.F32.BF16"),
    ],
)
def test_matmul_v2_feeds_wgmma_with_tma(folder, build, hgmma):
    record = load_build("matmul", build, folder)
    sass, tile = record["sass_opcodes"], record["constexprs"]
    assert record["function"] == "matmul_v2_kernel"
    assert sass.get(hgmma) == tile["BLOCK_K"] // 16
    # Bulk tensor copies in (UTMALDG) and out (UTMASTG), waited on through
    # shared-memory barriers; no cp.async (LDGSTS), no per-thread loads of A/B.
    assert sass.get("UTMALDG.2D", 0) > 0 and sass.get("UTMASTG.2D", 0) > 0
    assert not any(op.startswith(("LDGSTS", "LDG.E.128", "STG.E")) for op in sass)
    assert sass.get("SYNCS.PHASECHK.TRANS64.TRYWAIT", 0) > 0
    # Every stage holds an A and a B tile; the epilogue's C tile on top.
    stage_bytes = (tile["BLOCK_M"] + tile["BLOCK_N"]) * tile["BLOCK_K"] * 2
    assert record["shared_bytes"] >= record["num_stages"] * stage_bytes
    assert record["shared_bytes"] <= 227 * 1024  # sm_90a's per-block limit
    _assert_no_spills(record)


@BOTH_TRITONS
def test_softmax_v4_takes_fewer_exponentials_and_v3_loads_ahead(folder):
    # 4096-wide chunks over 256 threads: 16 values per thread. v2 takes two
    # exponentials per value in its first pass; v4 one. Both take one in the
    # second pass and one per lane in the merge.
    v2 = _ops("softmax", "v2-bf16-4096", folder)["MUFU.EX2"]
    v4 = _ops("softmax", "v4-bf16-4096", folder)["MUFU.EX2"]
    assert (v2, v4) == (4 * 16, 3 * 16)
    # v3 loads the next row before reducing this one: twice v1's loads,
    # and every load ahead of the first barrier of the reductions.
    v3 = load_build("softmax", "v3-fp32-4096", folder)
    v1 = _ops("softmax", "v1-fp32-4096", folder)
    assert v3["sass_opcodes"]["LDG.E.128"] == 2 * v1["LDG.E.128"]
    ops = [line.split()[1] if line.startswith("@") else line.split()[0]
           for line in v3["sass_excerpt"]]  # fmt: skip
    first_barrier = ops.index("BAR.SYNC.DEFER_BLOCKING")
    assert ops[:first_barrier].count("LDG.E.128") == 8


@BOTH_TRITONS
@pytest.mark.parametrize(
    "build", ["v2-bf16-d128", "v2-bf16-d128-causal", "v2-fp16-d64-causal"]
)
def test_attention_v2_folds_the_scale_into_one_multiply_add(folder, build):
    record = load_build("attention", build, folder)
    sass, tile = record["sass_opcodes"], record["constexprs"]
    assert tile["BLOCK_N"] == 128 and record["function"] == "attention_v2_kernel"
    # Each thread holds BLOCK_M * BLOCK_N / threads scores per key step and
    # gives each one FFMA (qk * scale - m) and one EX2, in both the mask-free
    # and the masked loop; plus an EX2 per row for the rescale.
    scores = tile["BLOCK_M"] * tile["BLOCK_N"] // (32 * record["num_warps"])
    assert sass.get("FFMA", 0) >= 2 * scores
    assert sass.get("MUFU.EX2", 0) >= 2 * scores
    dtype = "BF16" if build.startswith("v2-bf16") else ""
    qk = f"HGMMA.64x128x16.F32{'.' + dtype if dtype else ''}"
    assert sass.get(qk, 0) > 0  # 128 keys per score tile
    _assert_no_spills(record)


# ------------------------------------------------------------ new versions
# (issue 33: what each change shows in the compiled code)


def _look_back_loop(record):
    """The loop that reads the look-back state: the one with a 64-bit load."""
    (loop,) = [
        loop
        for loop in record["sass_loops"]
        if any(op.startswith("LDG.E.64") for op in loop["opcodes"])
    ]
    return loop["opcodes"]


@BOTH_TRITONS
def test_windowed_look_back_has_no_barrier_and_no_atomic_in_its_loop(folder):
    v2 = _look_back_loop(load_build("scan", "single-pass-fp32", folder))
    v3 = _look_back_loop(load_build("scan", "windowed-look-back-fp32", folder))
    # Version 2 pays block barriers and an L1 invalidate on every trip.
    assert v2.get("BAR.SYNC.DEFER_BLOCKING", 0) >= 2 and "CCTL.IVALL" in v2
    # Version 3: warp reductions over the window, no barrier, no atomic.
    assert not any(op.startswith(("BAR", "ATOM", "CCTL")) for op in v3)
    assert any(op.startswith(("SHFL", "REDUX")) for op in v3)


def test_a_sass_loop_is_a_predicated_branch_back():
    # Known-broken input for the loop reader: an unconditional branch back
    # (an mbarrier wait's out-of-line retry) is not a loop; a predicated one is.
    listing = [
        (0x00, "MOV R1, R2"),
        (0x10, "BAR.SYNC.DEFER_BLOCKING 0x0"),
        (0x20, "WARPGROUP.DEPBAR.LE gsb0, 0x1"),
        (0x30, "@P0 BRA 0x10"),
        (0x40, "EXIT"),
        (0x50, "BRA 0x0"),
    ]
    (loop,) = artifacts.sass_loops(listing)
    assert (loop["first"], loop["last"]) == (1, 3)
    assert loop["opcodes"]["BAR.SYNC.DEFER_BLOCKING"] == 1
    assert loop["waits"] == {"WARPGROUP.DEPBAR.LE gsb0, 0x1": 1}


@BOTH_TRITONS
def test_matmul_v3_splits_the_epilogue_and_adds_a_fourth_stage(folder):
    v2 = load_build("matmul", "v2-bf16-tma-persistent", folder)
    v3 = load_build("matmul", "v3-bf16-tma-split-epilogue", folder)
    assert (v2["num_stages"], v3["num_stages"]) == (3, 4)
    tile = v3["constexprs"]
    stages = 4 * (tile["BLOCK_M"] + tile["BLOCK_N"]) * tile["BLOCK_K"] * 2
    half_c = tile["BLOCK_M"] * tile["BLOCK_N"] // 2 * 2
    # Four stages plus half a C tile, within sm_90a's block limit.
    assert stages + half_c <= v3["shared_bytes"] <= 227 * 1024
    # Two stores of half a tile where version 2 has one of a whole tile.
    assert v3["sass_opcodes"]["UTMASTG.2D"] == 2 * v2["sass_opcodes"]["UTMASTG.2D"]
    assert v3["sass_opcodes"]["HGMMA.64x256x16.F32.BF16"] == 4
    _assert_no_spills(v3)


def _matmul_build(name: str, target: str) -> str:
    """sm_120a compiles its own tiles of versions 2 and 3 (``-sm120``)."""
    return name + "-sm120" if target == "sm_120a" else name


@pytest.mark.parametrize(
    "target, matrix_op",
    [
        ("sm_90a", "QGMMA.64x256x32.F32.E4M3.E4M3"),
        ("sm_100a", "UTCQMMA"),
        ("sm_120a", "QMMA.16832.F32.E4M3.E4M3"),
    ],
)
def test_fp8_matmul_runs_8_bit_tensor_core_products_into_float32(target, matrix_op):
    name = _matmul_build("v3-fp8-e4m3-tma-split-epilogue", target)
    record = load_build("matmul", name, artifacts.ARTIFACT_DIR, target)
    assert record["dtype"] == "float8_e4m3fn" and record["constexprs"]["SCALED"]
    assert record["sass_opcodes"].get(matrix_op, 0) > 0
    # No 16-bit matrix instruction: the e4m3 inputs are never widened.
    assert not any(
        op.startswith(("HGMMA", "UTCHMMA", "HMMA")) for op in record["sass_opcodes"]
    )
    _assert_no_spills(record)


def _main_loops(record):
    """The loops that run matrix products (the key-block loops)."""
    return [
        loop
        for loop in record["sass_loops"]
        if any(op.startswith("HGMMA") for op in loop["opcodes"])
    ]


@BOTH_TRITONS
def test_attention_v4_issues_the_next_scores_early_but_the_compiler_waits(folder):
    # Each key-block loop holds two products (QK^T and PV) on wgmma. On
    # sm_90a Triton still waits for every group before the exponentials
    # (gsb0, 0x0 only): the source's overlap does not survive compilation.
    record = load_build("attention", "v4-bf16-d128-overlap", folder)
    loops = _main_loops(record)
    assert len(loops) == 2  # the mask-free steps and the masked ones
    for loop in loops:
        assert set(loop["waits"]) == {"WARPGROUP.DEPBAR.LE gsb0, 0x0"}
        assert loop["opcodes"].get("MUFU.EX2", 0) > 0
    _assert_no_spills(record)


def test_warp_specialisation_applies_on_blackwell_and_not_on_hopper():
    plain, ws = "v4-bf16-d128-overlap", "v4-bf16-d128-warp-specialized"
    for folder in (artifacts.ARTIFACT_DIR, artifacts.SECOND_DIR):
        hopper = [load_build("attention", b, folder) for b in (plain, ws)]
        # sm_90a: the flag is accepted and changes nothing (no message).
        assert hopper[0]["sass_opcodes"] == hopper[1]["sass_opcodes"]
        assert hopper[0]["registers"] == hopper[1]["registers"]
        assert not any("setmaxnreg" in op for op in hopper[1]["ptx_opcodes"])
    blackwell = load_build("attention", ws, artifacts.ARTIFACT_DIR, "sm_100a")
    ptx = blackwell["ptx_opcodes"]
    # Partitions that give registers back and partitions that take them.
    assert ptx.get("setmaxnreg.dec.sync.aligned.u32", 0) > 0
    assert ptx.get("setmaxnreg.inc.sync.aligned.u32", 0) > 0
    plain_bw = load_build("attention", plain, artifacts.ARTIFACT_DIR, "sm_100a")
    assert not any("setmaxnreg" in op for op in plain_bw["ptx_opcodes"])


# ------------------------------------------------------------ three targets


@pytest.mark.parametrize(
    "target, matrix_op, absent",
    [
        ("sm_90a", "HGMMA", ("UTCHMMA", "HMMA")),
        ("sm_100a", "UTCHMMA", ("HGMMA", "HMMA")),
        ("sm_120a", "HMMA", ("HGMMA", "UTCHMMA")),
    ],
)
def test_one_matmul_source_takes_each_targets_matrix_instructions(
    target, matrix_op, absent
):
    name = _matmul_build("v2-bf16-tma-persistent", target)
    record = load_build("matmul", name, artifacts.ARTIFACT_DIR, target)
    sass = record["sass_opcodes"]
    assert any(op.startswith(matrix_op) for op in sass)
    assert not any(op.startswith(absent) for op in sass)
    assert sass.get("UTMALDG.2D", 0) > 0  # TMA on all three
    if target == "sm_100a":  # the accumulator lives in tensor memory
        assert any(op.startswith("LDTM") for op in sass)


def test_every_target_records_its_architecture_and_ptxas():
    for path in sorted(artifacts.ARTIFACT_DIR.glob("*.json")):
        data = evidence.read("artifact", path).data
        target = path.name.split(".")[1]
        assert data["target"] == target
        for record in data["builds"]:
            assert record["registers"] <= 255


def test_no_sm_120a_build_needs_more_shared_memory_than_a_block_gets():
    # An RTX 50-class part gives a block 99 KiB, not Hopper's 227: a build
    # over it would fail to launch there, so none may be.
    from kernels.devices import TARGETS

    limit = TARGETS["sm_120a"].shared_bytes_per_block
    over = sorted(
        (data["kernel"], record["build"])
        for path in artifacts.ARTIFACT_DIR.glob("*.sm_120a.json")
        for data in [evidence.read("artifact", path).data]
        for record in data["builds"]
        if record["shared_bytes"] > limit
    )
    assert over == []


def _loop_with_loads(record):
    """The grid-stride loop: the loop holding the 128-bit loads."""
    (loop,) = [loop for loop in record["sass_loops"] if "LDG.E.128" in loop["opcodes"]]
    return loop["opcodes"]


@BOTH_TRITONS
def test_reduction_v3_has_twice_the_loads_in_flight_per_trip(folder):
    v2 = _loop_with_loads(
        load_build("reduction", "v2-persistent-bf16-odd-length", folder)
    )
    v3 = _loop_with_loads(
        load_build("reduction", "v3-unrolled-bf16-odd-length", folder)
    )
    assert v3["LDG.E.128"] == 2 * v2["LDG.E.128"]
    _assert_no_spills(load_build("reduction", "v3-unrolled-bf16-odd-length", folder))


@BOTH_TRITONS
def test_softmax_backward_reads_two_rows_and_takes_no_exponential(folder):
    record = load_build("softmax", "backward-bf16-4096", folder)
    sass = record["sass_opcodes"]
    assert record["function"] == "softmax_backward_kernel"
    # y and dy in 16-byte loads, dx out in 16-byte stores: the bytes of the
    # model (read twice, write once), and no MUFU: nothing is recomputed.
    assert sass.get("LDG.E.128", 0) == 2 * sass.get("STG.E.128", 0) > 0
    assert not any(op.startswith("MUFU") for op in sass)
    _assert_no_spills(record)


#: Every (folder, target) the grouped transpose is compiled for.
ALL_BUILDS = pytest.mark.parametrize(
    "folder, target",
    [
        *((artifacts.ARTIFACT_DIR, target) for target in artifacts.TARGETS),
        (artifacts.SECOND_DIR, artifacts.TARGET_ARCH),
    ],
    ids=[*(f"triton-3.8-{t}" for t in artifacts.TARGETS), "triton-3.6-sm_90a"],
)


@ALL_BUILDS
@pytest.mark.parametrize("dtype, itemsize", [("fp32", 4), ("bf16", 2)])
def test_transpose_v3_stages_a_64_by_128_tile_with_128_bit_accesses(
    folder, target, dtype, itemsize
):
    v2 = load_build("transpose", f"tiled-{dtype}", folder, target)
    v3 = load_build("transpose", f"grouped-{dtype}", folder, target)
    tile = v3["constexprs"]
    assert (tile["BLOCK_M"], tile["BLOCK_N"], tile["GROUP_M"]) == (64, 128, 8)
    tile_bytes = tile["BLOCK_M"] * tile["BLOCK_N"] * itemsize
    # The whole tile, unpadded, staged once: twice version 2's shared memory.
    assert v3["shared_bytes"] == tile_bytes == 2 * v2["shared_bytes"]
    # Every global access is 16 bytes wide, and the threads' 16-byte loads
    # and stores each cover the tile exactly once.
    sass = v3["sass_opcodes"]
    global_ops = {op for op in sass if op.startswith(("LDG", "STG"))}
    assert global_ops == {"LDG.E.128", "STG.E.128"}
    threads = 32 * v3["num_warps"]
    assert sass["LDG.E.128"] * 16 * threads == tile_bytes
    assert sass["STG.E.128"] * 16 * threads == tile_bytes
    if dtype == "bf16":  # 16-bit: ldmatrix transposes on the way out
        assert sass.get("LDSM.16.MT88.4", 0) > 0
    # The grouped order's short last group: a min on the program id's
    # arithmetic that version 2's row order does not have.
    assert v3["ptx_opcodes"].get("min.s64", 0) == 1
    assert "min.s64" not in v2["ptx_opcodes"]
    _assert_no_spills(v3)


@pytest.mark.parametrize("target", artifacts.TARGETS)
def test_a_whole_65k_softmax_row_in_one_block_spills_on_every_target(target):
    # Why no version keeps a 65K row on chip (kernels/softmax/versions.py's notes):
    # at 16 and at 32 warps the float32 row overflows the registers.
    for build in ("v1-bf16-65536", "v1-bf16-65536-32-warps"):
        record = load_build("softmax", build, artifacts.ARTIFACT_DIR, target)
        assert record["constexprs"]["BLOCK"] == 65536
        assert record["spill_store_bytes"] > 0, (target, build)
        assert any(op.startswith("STL") for op in record["sass_opcodes"])
    widest = load_build(
        "softmax", "v1-bf16-65536-32-warps", artifacts.ARTIFACT_DIR, target
    )
    assert widest["num_warps"] == 32 and widest["registers"] == 64
