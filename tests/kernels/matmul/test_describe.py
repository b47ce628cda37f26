"""kernels/matmul/describe.py: the descriptor holds versions.py's own functions
and its artifact builds are keyword rows the builder can plan."""

import json

import torch

import evidence
from kernels.devices import TARGETS
from kernels.matmul import describe, versions
from scripts.artifacts import build


def test_the_descriptor_calls_the_kernels_own_functions():
    d = describe.DESCRIPTOR
    assert d.count_bytes is versions.bytes_moved
    assert d.count_flops is versions.flops
    assert d.configure is versions.launch_config


def test_every_build_plans_a_function_of_versions_py():
    names = [b.build for b in describe.DESCRIPTOR.artifact_builds]
    assert len(names) == len(set(names))
    for plan in build.plans(describe.DESCRIPTOR):
        assert hasattr(versions, plan.launch.kernel), plan.build.build
    assert build.source_path("matmul").name == "versions.py"


# ------------------------------------------------ sm_120a's shared memory


def _stage_bytes(config: versions.MatmulConfig, itemsize: int) -> int:
    """One stage of A and B tiles in shared memory."""
    k = config.BLOCK_K
    return (config.BLOCK_M * k + k * config.BLOCK_N) * itemsize


def _pipeline_fits(config: versions.MatmulConfig, itemsize: int, limit: int) -> bool:
    """Pencil check: every stage's A and B tiles in one block's shared memory."""
    return config.num_stages * _stage_bytes(config, itemsize) <= limit


def test_consumer_tiles_fit_what_a_block_gets_on_sm_120a():
    limit = TARGETS["sm_120a"].shared_bytes_per_block
    for M in (1024, 8192):
        assert _pipeline_fits(versions.v2_config(M, M, "sm_120a"), 2, limit)
        assert _pipeline_fits(versions.v3_config(M, M, "sm_120a"), 2, limit)
    fp8 = versions.v3_config(8192, 8192, "sm_120a", versions.FP8)
    assert _pipeline_fits(fp8, 1, limit)
    # Known-bad: Hopper's tiles, which the check must refuse there.
    assert not _pipeline_fits(versions.v2_config(8192, 8192), 2, limit)
    assert not _pipeline_fits(versions.v3_config(8192, 8192), 2, limit)


def test_hopper_and_datacenter_blackwell_keep_hopper_tiles():
    for target in (None, "sm_90a", "sm_100a"):
        assert versions.v2_config(8192, 8192, target) == versions._V2_LARGE
        assert versions.v3_config(8192, 8192, target) == versions._V3_LARGE
    (launch,) = versions.launch_config(
        torch.bfloat16, 8192, 8192, 8192, target="sm_120a"
    )
    assert launch.num_stages == 3 and launch.constexprs["BLOCK_N"] == 128


def test_each_target_gets_its_own_v2_and_v3_builds():
    for target in TARGETS:
        names = [p.build.build for p in build.plans(describe.DESCRIPTOR, target)]
        consumer = [n for n in names if n.endswith(describe.SM120)]
        assert bool(consumer) == (target == "sm_120a"), target
        if target == "sm_120a":  # every Hopper-tiled build has its twin
            assert "v2-bf16-tma-persistent" not in names
            assert len(consumer) == 5


def _over_the_block_limit(folder) -> list[str]:
    limit = TARGETS["sm_120a"].shared_bytes_per_block
    data = evidence.read("artifact", folder / "matmul.sm_120a.json").data
    return [r["build"] for r in data["builds"] if r["shared_bytes"] > limit]


def test_no_sm_120a_build_asks_for_more_shared_memory_than_a_block_gets(tmp_path):
    assert _over_the_block_limit(build.ARTIFACT_DIR) == []
    # Known-bad: the same file with one build asking for 160 KiB.
    path = build.ARTIFACT_DIR / "matmul.sm_120a.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["builds"][4]["shared_bytes"] = 160 * 1024
    (tmp_path / path.name).write_text(json.dumps(data), encoding="utf-8")
    assert _over_the_block_limit(tmp_path) == [data["builds"][4]["build"]]
