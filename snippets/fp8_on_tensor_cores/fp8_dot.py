"""An FP8 tile product, compiled for sm_90a on the CPU.

Shown on docs/kernels/matrix-multiplication/fp8-on-tensor-cores.md.
Evidence kind: compiled artifact (built here, without a GPU, by the
installed Triton; nothing runs). It shows which tensor-core instruction
``tl.dot`` on two e4m3 tiles with a float32 accumulator becomes. Compiling
needs the real JIT, so run it with ``TRITON_INTERPRET=0``.
"""

import re

import triton
import triton.language as tl

TILE = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}


# --8<-- [start:kernel]
@triton.jit
def fp8_tile_dot_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    rm, rn, rk = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])  # e4m3 tile
    b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])  # e4m3 tile
    acc = tl.dot(a, b, out_dtype=tl.float32)  # accumulate in float32
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)
    # --8<-- [end:kernel]


def sm90_matrix_instructions() -> list[str]:
    """The distinct wgmma instructions in the sm_90a PTX."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    if not isinstance(fp8_tile_dot_kernel, triton.runtime.JITFunction):
        raise RuntimeError("loaded for the interpreter; run with TRITON_INTERPRET=0")
    signature = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp32"}
    source = ASTSource(fp8_tile_dot_kernel, signature, dict(TILE), {})
    compiled = triton.compile(
        source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}
    )
    return sorted(set(re.findall(r"wgmma\.mma_async[\w.]*", compiled.asm["ptx"])))


if __name__ == "__main__":
    if isinstance(fp8_tile_dot_kernel, triton.runtime.JITFunction):
        print("\n".join(sm90_matrix_instructions()))
    else:
        print("interpreted: run with TRITON_INTERPRET=0 to compile for sm_90a")
