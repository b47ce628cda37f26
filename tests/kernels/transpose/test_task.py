"""The qualification task of the transpose (kernels/transpose/task.py)."""

from evidence import ROOT
from kernels.transpose.describe import DESCRIPTOR
from kernels.transpose.task import TASK


def test_the_task_names_the_kernel_its_descriptor_and_corpus():
    assert TASK["function"] == DESCRIPTOR.launcher.__name__
    assert (ROOT / TASK["kernel_file"]).is_file()
    assert (ROOT / TASK["corpus"] / "good").is_dir()
