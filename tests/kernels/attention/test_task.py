"""The qualification task of causal attention forward
(kernels/attention/task.py)."""

import torch

from evidence import ROOT
from kernels.attention.task import TASK, bound_shape, causal_reference
from kernels.attention.versions import attention_ref, causal_attention


def test_the_task_names_the_causal_launcher_and_its_corpus():
    assert TASK["function"] == causal_attention.__name__
    assert (ROOT / TASK["kernel_file"]).is_file()
    for path in TASK["only_catches"].values():
        assert (ROOT / path).is_file(), path


def test_the_reference_is_causal_and_the_bound_knows_it():
    q, k, v = (torch.randn(1, 1, 6, 16, dtype=torch.float64) for _ in range(3))
    causal = causal_reference(q, k, v)
    assert torch.equal(causal, attention_ref(q, k, v, causal=True))
    assert torch.equal(causal[..., 0, :], v[..., 0, :])  # query 0 sees key 0
    assert bound_shape([q, k, v]) == {"S": 6, "causal": True}


def test_the_causal_launcher_is_attention_with_causal_set():
    q, k, v = (torch.randn(1, 1, 20, 16) for _ in range(3))
    assert torch.allclose(
        causal_attention(q, k, v), attention_ref(q, k, v, causal=True), atol=1e-5
    )
