"""The parent's compile process (scripts/qualify/compile_server.py): the
kernels come from the syntax tree, and no module statement runs. It
compiles for sm_90a in every evaluator test on the CPU (the corpus's
single_lane_conditional.py fails in one specialisation only)."""

import textwrap

import pytest
import triton
import triton.language as tl

from scripts.qualify import compile_server

SOURCE = """
import triton
import triton.language as tl

open("/nonexistent/ran", "w")  # a module statement: must never run
SCALE = tl.constexpr(2)


def helper(v):
    return v


@triton.heuristics({"BLOCK": lambda args: 16})
@triton.jit(do_not_specialize=["n"])
def kernel(x_ptr, n, BLOCK: tl.constexpr = 16, OUT: tl.constexpr = tl.float16):
    pass


@triton.jit
def odd_default(x_ptr, BLOCK: tl.constexpr = print("ran")):
    pass
"""


def test_kernels_come_from_the_syntax_tree_and_no_statement_runs(tmp_path):
    path = tmp_path / "candidate.py"
    path.write_text(textwrap.dedent(SOURCE))
    namespace = compile_server.kernel_namespace(str(path))  # the open() never ran
    kernel = namespace["kernel"]
    assert isinstance(kernel, triton.runtime.JITFunction)
    assert [p.do_not_specialize for p in kernel.params][:2] == [False, True]
    assert namespace["SCALE"] == tl.constexpr(2)
    with pytest.raises(compile_server.CompileRefusal, match="plain Python"):
        namespace["helper"]()
    with pytest.raises(compile_server.CompileRefusal, match="not a literal"):
        namespace["odd_default"]()
