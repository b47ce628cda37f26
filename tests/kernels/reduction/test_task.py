"""The qualification task of the sum reduction (kernels/reduction/task.py)."""

from evidence import ROOT
from kernels.reduction.describe import DESCRIPTOR
from kernels.reduction.task import TASK


def test_the_task_names_the_kernel_its_descriptor_and_corpus():
    assert TASK["function"] == DESCRIPTOR.launcher.__name__
    assert (ROOT / TASK["kernel_file"]).is_file()
    assert (ROOT / TASK["corpus"] / "good").is_dir()
