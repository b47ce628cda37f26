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


def _namespace(tmp_path, source: str) -> dict:
    path = tmp_path / "candidate.py"
    path.write_text(textwrap.dedent(source))
    return compile_server.kernel_namespace(str(path))


def test_defaults_and_globals_take_the_values_of_module_constants(tmp_path):
    namespace = _namespace(
        tmp_path,
        """
        import triton
        import triton.language as tl
        DEFAULT_BLOCK = 1024
        BLOCK = tl.constexpr(2 ** 10)
        WIDTH: tl.constexpr = 4 * 256
        HUGE = 2 ** 10 ** 9

        @triton.jit
        def kernel(x_ptr, B: tl.constexpr = DEFAULT_BLOCK // 2, T=tl.float16):
            pass
        """,
    )
    kernel = namespace["kernel"]
    assert isinstance(kernel, triton.runtime.JITFunction)
    assert [p.default for p in kernel.params][1:] == [512, tl.float16]
    assert namespace["BLOCK"] == tl.constexpr(1024)
    # Python binds an annotated global as a plain int, and Triton refuses
    # to read one inside a kernel: the compile check sees what Triton sees
    assert type(namespace["WIDTH"]) is int
    assert "HUGE" not in namespace  # too large to fold: left unknown


def test_kernels_under_try_and_decided_ifs_are_found(tmp_path):
    namespace = _namespace(
        tmp_path,
        """
        import torch
        try:
            import triton
        except ImportError:
            triton = None

        if triton is not None and triton.__version__ >= "3":
            @triton.jit
            def kernel(new_ptr):
                pass
        else:
            @triton.jit
            def kernel(old_ptr):
                pass

        if torch.cuda.is_available():
            @triton.jit
            def guessed(x_ptr):
                pass
        """,
    )
    assert [p.name for p in namespace["kernel"].params] == ["new_ptr"]
    with pytest.raises(compile_server.CompileRefusal, match="cannot decide"):
        namespace["guessed"]()


def test_triton_jit_applied_as_a_call_makes_a_kernel(tmp_path):
    namespace = _namespace(
        tmp_path,
        """
        from triton import jit

        def _kernel(x_ptr, n):
            pass

        def _plain(x_ptr):
            pass

        kernel = jit(_kernel, do_not_specialize=["n"])
        other = print(_plain)
        """,
    )
    kernel = namespace[compile_server.KERNELS]["_kernel"]
    assert namespace["kernel"] is kernel
    assert [p.do_not_specialize for p in kernel.params] == [False, True]
    assert set(namespace[compile_server.KERNELS]) == {"_kernel"}
    with pytest.raises(compile_server.CompileRefusal, match="plain Python"):
        namespace["_kernel"]()  # the name itself stays the plain function


def test_an_attribute_assignment_binds_no_name(tmp_path):
    namespace = _namespace(
        tmp_path,
        """
        import triton
        triton.compile = None
        a, b = 1, 2

        @triton.jit
        def kernel(x_ptr):
            pass
        """,
    )
    assert isinstance(namespace["kernel"], triton.runtime.JITFunction)
    assert "a" not in namespace  # a tuple target is not folded
