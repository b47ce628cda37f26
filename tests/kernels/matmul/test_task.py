"""The qualification task of the tiled matmul (kernels/matmul/task.py)."""

import torch

from evidence import ROOT
from kernels.matmul.describe import DESCRIPTOR
from kernels.matmul.task import TASK, bound_shape


def test_the_task_names_the_kernel_its_descriptor_and_corpus():
    assert TASK["function"] == DESCRIPTOR.launcher.__name__
    assert (ROOT / TASK["kernel_file"]).is_file()
    for path in TASK["only_catches"].values():
        assert (ROOT / path).is_file(), path


def test_the_bound_reads_m_n_and_k_from_the_operands():
    a, b = torch.empty(3, 5), torch.empty(5, 7)
    assert bound_shape([a, b]) == {"M": 3, "N": 7, "K": 5}
