"""The autotuner picks the toy cost's best config, caches it under the key,
and the key leaves out what it does not name."""

import torch

from snippets.autotuning_honestly import tuned


def test_the_choice_is_the_toy_costs_best_and_differs_by_size():
    tuned.reset()
    assert tuned.chosen(100) == tuned.expected_best(100)
    assert tuned.chosen(1000) == tuned.expected_best(1000)
    assert tuned.expected_best(100) != tuned.expected_best(1000)


def test_the_key_holds_n_and_every_tensors_dtype_but_not_the_stride():
    tuned.reset()
    tuned.chosen(1000)
    assert list(tuned.scale_kernel.cache) == [(1000, "torch.float32", "torch.float32")]
    x = torch.arange(2000, dtype=torch.float32)[::2]  # same n, stride 2
    out = tuned.scale(x, 3.0)
    assert torch.equal(out, 3 * x)
    assert len(tuned.scale_kernel.cache) == 1  # reused the contiguous choice
    tuned.chosen(1000, torch.float16)
    assert len(tuned.scale_kernel.cache) == 2  # a new dtype tunes again


def test_a_new_size_tunes_again():
    tuned.reset()
    for n in (100, 101, 102):
        tuned.chosen(n)
    assert len(tuned.scale_kernel.cache) == 3


def test_the_first_calls_launches_list_every_config_not_the_winner():
    launches = tuned.first_call_launches(1000)
    tried = {(launch.constexprs["BLOCK"], launch.num_warps) for launch in launches}
    assert tried == {(c.kwargs["BLOCK"], c.num_warps) for c in tuned.CONFIGS}
    # so a row recorded during the first call cannot say which one won;
    # the best_config attribute can
    best = tuned.scale_kernel.best_config
    assert (best.kwargs["BLOCK"], best.num_warps) == tuple(
        tuned.expected_best(1000).values()
    )


def test_a_second_call_launches_only_the_winner():
    from kernels.launches import record_launches

    tuned.reset()
    tuned.chosen(1000)
    with record_launches() as log:
        tuned.scale(torch.arange(1000, dtype=torch.float32), 2.0)
    (launch,) = log.launches()
    assert {"BLOCK": launch.constexprs["BLOCK"], "num_warps": launch.num_warps} == (
        tuned.expected_best(1000)
    )
