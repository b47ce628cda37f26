import pytest
import torch

from snippets.compute_sanitizer import planted


def test_the_interpreter_view_is_what_the_page_says():
    view = planted.interpreter_view()
    assert not any(seen["raised"] for seen in view.values())
    # the unmasked read past the end goes unnoticed and the output is right
    assert view["oob-read"]["matches_reference"]
    assert view["clean"]["matches_reference"]
    # a reference check catches the other two bugs
    assert not view["uninit-read"]["matches_reference"]
    assert not view["global-race"]["matches_reference"]


def test_global_race_keeps_one_programs_partial():
    out, want = planted.global_race("cpu")
    # the interpreter runs programs in order: the last one's partial wins
    assert float(out) == planted.N - planted.BLOCK * (planted.N // planted.BLOCK)
    assert float(want) == planted.N


def test_a_failing_case_counts_as_raised(monkeypatch):
    def broken(device):
        raise RuntimeError("boom")

    monkeypatch.setattr(planted, "CASES", {"broken": broken})
    assert planted.interpreter_view() == {
        "broken": {"raised": True, "matches_reference": False}
    }


@pytest.mark.parametrize("case", ["oob-read", "clean"])
def test_outputs_are_float32_of_n(case):
    out, want = planted.CASES[case]("cpu")
    assert out.dtype == torch.float32 and out.shape == want.shape == (planted.N,)
