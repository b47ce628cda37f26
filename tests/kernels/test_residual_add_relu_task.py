"""The qualification task beside the kernel (kernels/residual_add_relu_task.py)."""

from evidence import ROOT
from kernels.residual_add_relu import residual_add_relu
from kernels.residual_add_relu_task import TASK


def test_the_task_names_this_kernel_and_its_corpus():
    assert TASK["function"] == residual_add_relu.__name__
    assert (ROOT / TASK["kernel_file"]).is_file()
    for path in TASK["only_catches"].values():
        assert (ROOT / path).is_file(), path
