"""The sm_90a compile check of a launched kernel (used by
``scripts/qualify/worker.py``, inside the candidate's process): the launch's
argument types become a Triton signature, and the kernel's Python function
is compiled ahead of time for sm_90a, as ``scripts/artifacts`` compiles the
project's kernels.
"""

from __future__ import annotations

import inspect

import torch
import triton

TRITON_TYPES = {
    torch.float32: "fp32",
    torch.float16: "fp16",
    torch.bfloat16: "bf16",
    torch.float64: "fp64",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.uint8: "u8",
    torch.int8: "i8",
    torch.bool: "i1",
}


def specialisation(fn, args, kwargs) -> tuple[dict, dict, dict]:
    """(signature, constexprs, options) of one launch: what Triton compiles
    a separate binary for."""
    from triton.runtime.jit import JITFunction

    jit = JITFunction(fn)
    signature, constexprs = {}, {}
    options = {k: kwargs[k] for k in ("num_warps", "num_stages") if k in kwargs}
    for index, param in enumerate(jit.params):
        name = param.name
        if index < len(args):
            value = args[index]
        elif name in kwargs:
            value = kwargs[name]
        elif param.default is not inspect.Parameter.empty:
            value = param.default
        else:
            raise TypeError(f"no value for argument {name}")
        if param.is_constexpr:
            signature[name] = "constexpr"
            constexprs[name] = value
        elif isinstance(value, torch.Tensor):
            signature[name] = "*" + TRITON_TYPES.get(value.dtype, "fp32")
        elif isinstance(value, bool):
            signature[name] = "i1"
        elif isinstance(value, int):
            signature[name] = "i32" if -(2**31) <= value < 2**31 else "i64"
        elif isinstance(value, float):
            signature[name] = "fp32"
        else:
            signature[name] = "constexpr"
            constexprs[name] = value
    return signature, constexprs, options


def compile_for_sm90a(fn, args, kwargs) -> None:
    """Compile a kernel's Python function for sm_90a ahead of time, with the
    argument types of this launch (as scripts/artifacts compiles the
    project's kernels). Raises what the compiler raises."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    signature, constexprs, options = specialisation(fn, args, kwargs)
    source = ASTSource(JITFunction(fn), signature, constexprs)
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options)
    if ".target sm_90a" not in compiled.asm["ptx"]:
        raise RuntimeError("the PTX is not for sm_90a")
