import torch

from snippets.deterministic_reductions import repeat


def test_the_check_catches_a_change_of_sign_of_zero():
    calls = iter([torch.tensor(0.0), torch.tensor(-0.0)])
    assert not repeat.bitwise_repeatable(lambda x: next(calls), None, runs=2)


def test_interpreter_view():
    view = repeat.interpreter_view()
    assert view["two_stage_repeatable"]
    # the interpreter runs programs in order: it cannot show the atomic race
    assert view["atomic_repeatable"]
    x = torch.tensor(repeat.sample(repeat.N), dtype=torch.float64)
    for key in ("atomic", "two_stage"):
        assert abs(view[key] - float(x.sum())) < 1e-3 * float(x.abs().sum())
