import pytest

from snippets.when_torch_compile_is_enough import inductor_code as ic


@pytest.mark.parametrize(
    "numel, expected",
    [(1, (0, 1)), (16, (16, 0)), (17, (16, 1)), (257 * 1031, (264960, 7))],
)
def test_main_and_tail(numel, expected):
    assert ic.main_and_tail(numel) == expected


@pytest.mark.parametrize("args", [(0,), (5, 0)])
def test_main_and_tail_refuses_nonsense(args):
    with pytest.raises(ValueError, match="must be >= 1"):
        ic.main_and_tail(*args)


def test_the_committed_capture_matches_the_model():
    data = ic.load()
    assert data["device"] == "cpu" and data["torch"]
    numel = data["shape"][0] * data["shape"][1]
    assert ic.loop_bounds(data["code"]) == (numel, ic.main_and_tail(numel)[0])
    main, tail = ic.main_and_tail(numel)
    assert ic.facts()["capture.main"] == f"{main:,}"
    assert ic.facts()["capture.lanes"] == str(ic.VECTOR_LANES)


def test_every_step_is_found_in_both_sources():
    rows = ic.step_lines(ic.load()["code"], ic.KERNEL.read_text())
    assert [r[0] for r in rows] == list(ic.STEPS)
    table = ic.comparison_table()
    assert table.count("\n") == 2 + len(ic.STEPS)


def test_a_missing_step_is_an_error():
    with pytest.raises(ValueError, match="no line for 'load x'"):
        ic.step_lines("nothing here", "nor here")


def test_the_page_says_no_gpu_capture_only_while_none_is_committed(tmp_path):
    assert ic.load("cuda", tmp_path) is None
    assert ic.load("cuda") is None, (
        "a GPU capture is committed: rewrite the page's 'No GPU capture is "
        "committed yet' sentence (when-torch-compile-is-enough.md) to show it"
    )
