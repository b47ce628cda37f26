"""Interview exercise (Qualify a generated kernel): a kernel as a code
generator might write it. Review it before running the evaluator.

The verdict of ``python -m scripts.qualify --all`` on this file is committed
in ``results/qualify/generated_candidate.cpu.json``; the page shows it inside
the folded answer, after the question.
Expected check: values
"""

import json
from pathlib import Path

import torch
import triton
import triton.language as tl


# --8<-- [start:candidate]
@triton.jit
def fused_add_relu_kernel(
    x_ptr,
    y_ptr,
    out_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = tl.maximum(x.to(tl.float32) + y.to(tl.float32), 0.0)
    tl.store(out_ptr + offsets, output, mask=mask)


def residual_add_relu(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """Fused residual add + ReLU: one read of each input, one write."""
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    fused_add_relu_kernel[grid](x, residual, output, n_elements, BLOCK_SIZE=1024)
    return output


# --8<-- [end:candidate]


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    verdict_file = root / "results" / "qualify" / "generated_candidate.cpu.json"
    verdict = json.loads(verdict_file.read_text())
    print(verdict["status"], "- failed checks:", ", ".join(verdict["failed_checks"]))
