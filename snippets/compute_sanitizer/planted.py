"""Small Triton kernels with planted bugs, for Compute Sanitizer to find (or not).

Shown on docs/kernels/correctness/compute-sanitizer.md. Each case launches
its kernels on a device ("cpu" under TRITON_INTERPRET=1, or "cuda") and
returns the output and the reference it should equal. On a GPU machine
`python -m scripts.sanitize` runs each case under `compute-sanitizer`
(through `python -m scripts.sanitize.target planted:<case>`); here, on the
CPU, `interpreter_view()` shows what the Triton interpreter notices.
Evidence kind: Triton interpreter; what Compute Sanitizer reports is a
device result and lives in the result file the runner writes.
"""

import torch
import triton
import triton.language as tl

from snippets.compute_sanitizer.findings import BLOCK, N


# --8<-- [start:oob-read]
@triton.jit
def oob_read_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x_ptr + offs)  # BUG: no mask, the last block reads past n
    tl.store(out_ptr + offs, values, mask=offs < n)  # the store is masked


def oob_read(device: str) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.arange(N, dtype=torch.float32, device=device)
    out = torch.empty_like(x)
    oob_read_kernel[(triton.cdiv(N, BLOCK),)](x, out, N, BLOCK=BLOCK)
    return out, x
    # --8<-- [end:oob-read]


# --8<-- [start:uninit-read]
@triton.jit
def half_write_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n // 2)  # BUG


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def uninit_read(device: str) -> tuple[torch.Tensor, torch.Tensor]:
    staged = torch.empty(N, dtype=torch.float32, device=device)  # never zeroed
    grid = (triton.cdiv(N, BLOCK),)
    half_write_kernel[grid](staged, N, BLOCK=BLOCK)  # fills only the first half
    out = torch.empty_like(staged)
    copy_kernel[grid](staged, out, N, BLOCK=BLOCK)  # reads all of it
    return out, torch.arange(N, dtype=torch.float32, device=device)
    # --8<-- [end:uninit-read]


# --8<-- [start:global-race]
@triton.jit
def global_race_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    partial = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    tl.store(out_ptr, partial)  # BUG: every program writes the same address


def global_race(device: str) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.ones(N, dtype=torch.float32, device=device)
    out = torch.zeros(1, dtype=torch.float32, device=device)
    global_race_kernel[(triton.cdiv(N, BLOCK),)](x, out, N, BLOCK=BLOCK)
    return out, x.sum().reshape(1)
    # --8<-- [end:global-race]


def clean(device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The control: the same copy with its mask, nothing planted."""
    x = torch.arange(N, dtype=torch.float32, device=device)
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(N, BLOCK),)](x, out, N, BLOCK=BLOCK)
    return out, x


CASES = {
    "oob-read": oob_read,
    "uninit-read": uninit_read,
    "global-race": global_race,
    "clean": clean,
}


# --8<-- [start:interpreter-view]
def interpreter_view(device: str = "cpu") -> dict[str, dict[str, bool]]:
    """Per case: did the launch raise, and does the output equal the
    reference? (Run with TRITON_INTERPRET=1 on a CPU.)"""
    view = {}
    for name, case in CASES.items():
        try:
            out, want = case(device)
        except Exception:  # any failure counts as "noticed"
            view[name] = {"raised": True, "matches_reference": False}
            continue
        view[name] = {"raised": False, "matches_reference": torch.equal(out, want)}
    return view
    # --8<-- [end:interpreter-view]


if __name__ == "__main__":
    print("case         raised  matches reference")
    for name, seen in interpreter_view().items():
        raised = "yes" if seen["raised"] else "no"
        match = "yes" if seen["matches_reference"] else "no"
        print(f"{name:<12} {raised:<7} {match}")
