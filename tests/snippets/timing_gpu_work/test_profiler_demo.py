"""torch.profiler on the CPU names the operators eager PyTorch ran."""

from snippets.timing_gpu_work import profiler_demo


def test_profiler_sees_two_operators():
    table = profiler_demo.profile_residual_add_relu(n=64)
    ops = profiler_demo.operators(table)
    assert "aten::add" in ops and "aten::relu" in ops


def test_nsight_command_lines():
    assert profiler_demo.NSIGHT["nsys"].startswith("nsys profile ")
    assert profiler_demo.NSIGHT["ncu"].startswith("ncu ")
