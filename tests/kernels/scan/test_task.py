"""The qualification task of the inclusive scan (kernels/scan/task.py)."""

from evidence import ROOT
from kernels.scan.describe import DESCRIPTOR
from kernels.scan.task import TASK


def test_the_task_names_the_kernel_its_descriptor_and_corpus():
    assert TASK["function"] == DESCRIPTOR.launcher.__name__
    assert (ROOT / TASK["kernel_file"]).is_file()
    assert (ROOT / TASK["corpus"] / "good").is_dir()
