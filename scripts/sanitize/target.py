"""One process for compute-sanitizer to watch: ``python -m
scripts.sanitize.target planted:<case>`` or ``kernel:<name>``.

A planted case runs its kernels from snippets/compute_sanitizer/planted.py;
a kernel runs its launcher once on its descriptor's ``tiny`` shape. Either
runs on CUDA and synchronizes, so every error is reported before exit. It
prints one line; the exit status is 0 unless the target could not run.
"""

from __future__ import annotations

import sys


def run_target(target: str, device: str = "cuda") -> str:
    """Run one target on `device`; a one-line description of what ran."""
    import torch

    kind, _, name = target.partition(":")
    if kind == "planted":
        from snippets.compute_sanitizer.planted import CASES

        if name not in CASES:
            raise ValueError(f"unknown planted case {name!r}; known: {sorted(CASES)}")
        out, want = CASES[name](device)
        if device == "cuda":
            torch.cuda.synchronize()
        same = torch.equal(out.cpu(), want.cpu())
        return f"{target}: ran on {device}; output equals reference: {same}"
    if kind == "kernel":
        from kernels.descriptor import discover

        descriptors = discover()
        if name not in descriptors:
            raise ValueError(f"unknown kernel {name!r}; known: {sorted(descriptors)}")
        d = descriptors[name]
        shape = d.shapes["tiny"][0]
        dtype_name = d.dtype_cuda if device == "cuda" else d.dtype_cpu
        inputs = d.make_inputs(shape, getattr(torch, dtype_name), device, 0)
        d.launcher(*inputs, **d.call_kwargs(shape))
        if device == "cuda":
            torch.cuda.synchronize()
        return f"{target}: ran on {device} at {d.shape_text(shape)} ({dtype_name})"
    raise ValueError(f"target must be planted:<case> or kernel:<name>, got {target!r}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m scripts.sanitize.target planted:<case>|kernel:<name>")
        return 2
    print(run_target(args[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
