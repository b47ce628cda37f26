"""Where a result came from: the commit, the software, the device.

Every tool that writes a data file records these through this module (one
copy). torch and Triton are imported inside the functions that report them,
so importing this module stays cheap for the site build.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from pathlib import Path

from evidence import ROOT


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


#: Set by whoever sends a tree without its .git (the GPU run's sending side,
#: ``python -m scripts.device_run --commit SHA``): the commit the files are at.
COMMIT_ENV = "GPU_PERF_COMMIT"
COMMIT_RE = re.compile(r"^[0-9a-f]{4,40}$")


def git_identity(commit_override: str | None = None) -> dict:
    """The checkout's commit and whether it was clean; without git (a copied
    tree), the commit given on the command line or in ``GPU_PERF_COMMIT``."""
    commit = _git("rev-parse", "HEAD")
    changed = _git("status", "--porcelain", "--untracked-files=no")
    given, source = commit_override, "--commit"
    if not given and os.environ.get(COMMIT_ENV):
        given, source = os.environ[COMMIT_ENV], COMMIT_ENV
    if commit is None and given:
        if not COMMIT_RE.match(given):
            raise ValueError(
                f"{source}: {given[:60]!r} is not a commit id (4 to 40 lowercase "
                "hex digits, as `git rev-parse HEAD` prints)"
            )
        return {"commit": given, "dirty": None, "commit_source": source}
    return {
        "commit": commit or "unknown",
        "dirty": None if changed is None else bool(changed),
        "changed_files": [] if not changed else changed.splitlines(),
        "commit_source": "git" if commit else "unavailable",
    }


def software_info() -> dict:
    import numpy
    import torch
    import triton

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "triton": triton.__version__,
        "numpy": numpy.__version__,
        "platform": platform.platform(),
    }


def nvidia_smi(device_index: int, uuid: str | None) -> dict:
    """Clocks, temperature and throttle reasons, read without changing them.

    The GPU is addressed by UUID when torch reports one (CUDA_VISIBLE_DEVICES
    renumbers devices for torch but not for nvidia-smi), else by index.
    """
    base = [
        "clocks.sm",
        "clocks.mem",
        "clocks.max.sm",
        "clocks.max.mem",
        "temperature.gpu",
        "power.draw",
        "pstate",
        "driver_version",
    ]
    targets = [f"GPU-{uuid}"] if uuid else []
    targets.append(str(device_index))
    failure = "no query ran"
    for target in targets:
        # The reasons field was renamed in newer drivers; try both names.
        for reasons in (
            "clocks_event_reasons.active",
            "clocks_throttle_reasons.active",
        ):
            fields = [*base, reasons]
            command = [
                "nvidia-smi",
                f"--id={target}",
                f"--query-gpu={','.join(fields)}",
                "--format=csv,noheader,nounits",
            ]
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=20
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                return {"error": f"nvidia-smi unavailable: {exc}"}
            if done.returncode == 0:
                values = [v.strip() for v in done.stdout.strip().split(",")]
                return {
                    "nvidia_smi_id": target,
                    **dict(zip(fields, values, strict=False)),
                }
            failure = (done.stderr or done.stdout).strip()
    return {"error": f"nvidia-smi failed: {failure}"}


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_info(device: str) -> dict:
    import torch

    if device == "cpu":
        return {
            "kind": "cpu",
            "name": cpu_name(),
            "logical_cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
        }
    index = torch.cuda.current_device()
    props = torch.cuda.get_device_properties(index)
    uuid = getattr(props, "uuid", None)
    info = {
        "kind": "cuda",
        "name": props.name,
        "index": index,
        "uuid": str(uuid) if uuid is not None else None,
        "compute_capability": f"{props.major}.{props.minor}",
        "sm_count": props.multi_processor_count,
        "l2_bytes": l2_cache_bytes(device),
        "memory_bytes": props.total_memory,
        "cuda_runtime": torch.version.cuda,
        "clocks_before": nvidia_smi(index, str(uuid) if uuid else None),
    }
    info["driver"] = info["clocks_before"].get("driver_version")
    return info


def l2_cache_bytes(device: str) -> int:
    """The L2 size the driver reports for a CUDA device, read at run time."""
    import torch

    if not device.startswith("cuda"):
        raise ValueError(f"l2_cache_bytes needs a CUDA device, got {device!r}")
    props = torch.cuda.get_device_properties(torch.device(device))
    size = getattr(props, "L2_cache_size", None)
    if not size:
        raise RuntimeError(
            f"torch does not report an L2 size for {props.name}; "
            "pass flush_bytes explicitly"
        )
    return int(size)
