"""torch.profiler on the CPU, and the command lines of the two Nsight tools
(docs/kernels/where-time-goes/timing-gpu-work.md)."""

from __future__ import annotations


# --8<-- [start:torch-profiler]
def profile_residual_add_relu(n: int = 1 << 16, device: str = "cpu") -> str:
    """Profile relu(x + r) and return the table of operators it ran."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    x = torch.randn(n, device=device)
    r = torch.randn(n, device=device)
    activities = [ProfilerActivity.CPU]
    if device.startswith("cuda"):
        activities.append(ProfilerActivity.CUDA)  # kernel times on the GPU
    with profile(activities=activities) as prof:
        for _ in range(3):
            torch.relu(x + r)
    return prof.key_averages().table(sort_by="cpu_time_total", row_limit=6)


# --8<-- [end:torch-profiler]


# --8<-- [start:nsight]
NSIGHT = {
    # Timeline: every kernel, copy, sync and CPU range, with gaps between.
    "nsys": "nsys profile -t cuda,nvtx,osrt -o step python -m my_service.step",
    # One kernel, replayed many times to read its hardware counters.
    "ncu": "ncu --set full -k regex:residual_add_relu -c 1 -o kernel "
    "python -m my_service.step",
}
# --8<-- [end:nsight]


def operators(table: str) -> list[str]:
    """The aten:: operator names in a profiler table."""
    return sorted({w for w in table.split() if w.startswith("aten::")})


if __name__ == "__main__":
    print("operators:", ", ".join(operators(profile_residual_add_relu())))
    for tool, line in NSIGHT.items():
        print(f"{tool}: {line.split()[1]} ...")
