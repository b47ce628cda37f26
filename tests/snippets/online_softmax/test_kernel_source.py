"""Kernel excerpts are read from the current source, by function name."""

import pytest

from snippets.online_softmax.kernel_source import excerpt, function_lines


def test_function_lines_include_the_decorator_and_the_whole_body():
    lines = function_lines("kernels/softmax.py", "softmax_v2_kernel")
    assert lines[0] == "@triton.jit"
    assert lines[1].startswith("def softmax_v2_kernel(")
    assert "tl.store" in lines[-1]


def test_excerpt_slices_dedents_and_titles():
    block = excerpt(
        "kernels/softmax.py", "softmax_v2_kernel", "Pass 1", "run_max = new"
    )
    lines = block.splitlines()
    assert lines[0] == '```python title="kernels/softmax.py (excerpt)"'
    assert lines[1].startswith("# Pass 1") and lines[-2].strip() == "run_max = new_max"
    assert lines[-1] == "```"


def test_missing_function_or_line_names_it():
    with pytest.raises(KeyError, match="no top-level function 'nope'"):
        function_lines("kernels/softmax.py", "nope")
    with pytest.raises(KeyError, match="no line containing 'zzz'"):
        excerpt("kernels/softmax.py", "softmax_v1_kernel", "zzz")
