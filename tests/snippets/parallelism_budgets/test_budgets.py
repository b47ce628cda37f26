"""Parallelism budgets: the volumes each layout puts on the wire, the link
its groups cross, and the page calculators' answers."""

import pytest

from kernels.interconnects import INFINIBAND_NDR, NVLINK4_H200
from snippets.parallelism_budgets import budgets as b


def test_data_parallel_moves_twice_the_gradients_less_one_share():
    assert b.data_parallel_bytes(1000, 8) == pytest.approx(2 * 7 / 8 * 2000)


def test_zero_1_and_2_match_the_all_reduce_and_zero_3_is_half_again():
    dp = b.data_parallel_bytes(1000, 16)
    assert sum(b.zero_bytes(1000, 16, 1).values()) == pytest.approx(dp)
    assert sum(b.zero_bytes(1000, 16, 2).values()) == pytest.approx(dp)
    assert sum(b.zero_bytes(1000, 16, 3).values()) == pytest.approx(1.5 * dp)
    with pytest.raises(ValueError, match="stage"):
        b.zero_bytes(1000, 16, 4)


def test_tensor_parallel_is_four_all_reduces_per_layer():
    cfg = b.model("llama3-8b")
    one_layer = b.tensor_parallel_bytes(cfg, 2, 10, 1)
    assert one_layer == pytest.approx(4 * 1.0 * 10 * cfg.hidden * 2)
    assert b.tensor_parallel_bytes(cfg, 1, 10, 1) == 0


@pytest.mark.parametrize("p, m, bubble", [(1, 1, 0.0), (4, 1, 0.75), (4, 13, 0.1875)])
def test_the_pipeline_bubble(p, m, bubble):
    assert b.pipeline_bubble(p, m) == pytest.approx(bubble)


def test_groups_that_span_nodes_cross_infiniband_on_one_nic_per_gpu():
    inside = b.layout_budget("llama3-8b", dp=8)["traffic"]["data parallel"]
    across = b.layout_budget("llama3-8b", dp=32)["traffic"]["data parallel"]
    assert inside["link"] == "NVLink (NVLS)"
    assert across["link"] == "InfiniBand, 8 of 8 NICs a node"
    ring = b.data_parallel_bytes(b.params("llama3-8b"), 32)
    nic = INFINIBAND_NDR.per_direction_bytes_per_s
    # the audit's arithmetic: 2 x 31/32 x 16.06 GB / 8 NICs / 50 GB/s
    assert across["bytes"] == pytest.approx(ring / 8)
    assert across["seconds"] == pytest.approx(ring / 8 / nic)
    assert across["one_nic_seconds"] == pytest.approx(ring / nic)
    tp = b.layout_budget("llama3-70b", tp=8, dp=4, zero_stage=1)["traffic"]
    assert tp["data parallel"]["link"] == "InfiniBand, 1 of 8 NICs a node"
    assert tp["data parallel"]["seconds"] == pytest.approx(
        tp["data parallel"]["one_nic_seconds"]
    )
    assert (
        tp["tensor parallel"]["link"] == "NVLink (NVLS)"
        and not tp["tensor parallel"]["hides"]
    )


def test_nvls_sends_each_buffer_once_a_ring_twice_less_a_share():
    cfg = b.model("llama3-8b")
    nvls = b.tensor_parallel_bytes(cfg, 8, 10, 1)
    ring = b.tensor_parallel_bytes(cfg, 8, 10, 1, nvls=False)
    assert ring == pytest.approx(nvls * 2 * 7 / 8)
    node = b.layout_budget("llama3-8b", dp=8)["traffic"]["data parallel"]
    grads = b.params("llama3-8b") * 2
    assert node["seconds"] == pytest.approx(
        grads / NVLINK4_H200.per_direction_bytes_per_s
    )


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"tp": 16}, "inside one 8-GPU node"),
        ({"pp": 3}, "must divide the 32 layers"),
        ({"dp": 0}, "dp must be a whole number"),
        ({"mfu": 1.5}, "mfu must lie"),
    ],
)
def test_impossible_layouts_are_refused(kwargs, says):
    with pytest.raises(ValueError, match=says):
        b.layout_budget("llama3-8b", **kwargs)


def test_the_calculators_answer_in_words():
    assert "(hides)" in b.parallelism_budget()
    text = b.parallelism_budget("llama3-70b", tp=8, pp=4, dp=1, micro_batches=16)
    assert "bubble 16%" in text and "tensor parallel" in text and "(exposed)" in text
    assert "over InfiniBand NDR" in b.expert_parallel_budget(across_nodes=True)
    with pytest.raises(ValueError, match="model"):
        b.parallelism_budget("gpt-5")
