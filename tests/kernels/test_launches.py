"""kernels/launches.py: what record_launches() sees, and CUDA's grid limits."""

import pytest
import torch
from triton.runtime.jit import JITFunction

import kernels.residual_add_relu as rar
import kernels.scan.versions as scan
from kernels.descriptor import Launch
from kernels.launches import GRID_LIMITS, grid_violation, record_launches
from tests.helpers.kernel_checks import random_tensor


@pytest.mark.parametrize(
    ("grid", "axis"),
    [
        pytest.param((2**31 - 1, 65535, 65535), None, id="at-every-limit"),
        pytest.param((1,), None, id="one-axis"),
        pytest.param((2**31, 1, 1), 0, id="x-one-past"),
        pytest.param((1, 65536, 1), 1, id="y-one-past"),
        pytest.param((1, 1, 65536), 2, id="z-one-past"),
    ],
)
def test_grid_violation_names_the_axis(grid, axis):
    violation = grid_violation(grid)
    if axis is None:
        assert violation is None
    else:
        assert violation.startswith(f"grid axis {axis} has {grid[axis]} programs")
        assert str(GRID_LIMITS[axis]) in violation


def test_records_kernel_constexprs_options_and_grid(device):
    x = random_tensor((2049,), torch.float32, device, seed=1)
    with record_launches() as log:
        rar.residual_add_relu_v1(x, x)
    (record,) = log.records
    assert record.launch == Launch(
        "residual_add_relu_v1_kernel", {"BLOCK_SIZE": 1024}, num_warps=4
    )
    assert record.grid == (3, 1, 1)


def test_launches_counts_a_repeated_launch_once(device):
    # Passes 1 and 3 of a three-level scan launch the same two kernels again
    # on the block totals: four records, two distinct launches.
    x = random_tensor((40,), torch.float32, device, seed=2)
    with record_launches() as log:
        scan.cumsum_v1(x, block_size=16)
    kernels = [record.launch.kernel for record in log.records]
    assert len(kernels) > 2
    assert [launch.kernel for launch in log.launches()] == [
        "scan_block_sums_kernel",
        "scan_v1_kernel",
    ]


def test_run_is_restored_even_after_an_error():
    before = JITFunction.run
    with pytest.raises(RuntimeError), record_launches():
        raise RuntimeError("inside the block")
    assert JITFunction.run is before


def test_one_interceptor_can_skip_and_is_undone():
    from kernels.launches import SkipPrograms, intercept, kernel_classes

    seen = []

    def before(kernel, args, kwargs, grid, interpreted):
        seen.append(kernel.fn.__name__)
        raise SkipPrograms()

    originals = [cls.run for cls, _ in kernel_classes()]
    undo = intercept(before)
    try:
        x = torch.ones(4)
        out = torch.zeros(4)
        assert rar.residual_add_relu_v1_kernel[(1,)](x, x, out, 4, 4) is None
    finally:
        undo()
    assert seen == ["residual_add_relu_v1_kernel"]
    assert out.tolist() == [0.0] * 4  # the programs never ran
    assert [cls.run for cls, _ in kernel_classes()] == originals
