"""kernels/transpose/describe.py: the descriptor holds versions.py's own functions
and its artifact builds are keyword rows the builder can plan."""

from kernels.transpose import describe, versions
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
    assert build.source_path("transpose").name == "versions.py"
