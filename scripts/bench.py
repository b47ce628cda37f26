"""Benchmark runner: time every kernel against PyTorch and record everything.

Usage::

    python scripts/bench.py [KERNEL ...] [--profile quick|full|tiny]
                            [--device cuda|cpu] [--out DIR]

``make bench`` runs ``python scripts/bench.py --profile full``.

For each kernel and shape: fresh random inputs (never zeros), every provider
checked against a float64 reference before any timing, the first call timed
apart, then interleaved rounds (``scripts/timing.py``) with an L2 flush
before every timed call, and the output of the timed calls checked again.
Copy-bandwidth and matmul ceilings are measured in the same run. Each result
goes to a new file under ``results/bench/`` that is rewritten atomically after
every shape, so an interrupted run keeps what it measured.

``--device cpu`` runs the same harness on CPU tensors with host timers (eager
against torch.compile); Triton runs in the interpreter there, so its rows are
checked for correctness and never timed.

Exit codes:
    0  every row correct and plausible
    2  usage error (unknown kernel, bad option, TRITON_INTERPRET=1 on a GPU)
    3  ``--device cuda`` asked for (the default) but no CUDA device is present
    4  the run finished, but some row failed correctness, raised an error, or
       was flagged as implausible (the file records which and why)
    130  interrupted (Ctrl-C); the file keeps the rows measured so far
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import importlib
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python scripts/bench.py` puts scripts/ first
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from scripts import timing  # noqa: E402
from scripts.bench_embed import (  # noqa: E402
    LAUNCH_BOUND_MS,
    METHOD,
    PROFILE_ROUNDS,
    SCHEMA_VERSION,
    classify,
    kernel_source_paths,
    plausibility_flags,
)

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NO_CUDA = 3
EXIT_BAD_ROWS = 4
EXIT_INTERRUPTED = 130

DEFAULT_OUT = ROOT / "results" / "bench"
PROFILES = ("quick", "full", "tiny")


# Datasheet figures, shown beside the measured ceilings (never used as them).
DATASHEETS = {
    "H200": {
        "bandwidth_bytes_per_s": 4.8e12,
        "bf16_dense_flop_per_s": 989e12,
        "source": "NVIDIA H200 Tensor Core GPU datasheet (SXM)",
    },
}

STATUS_OK = "ok"
STATUS_INCORRECT = "incorrect"
STATUS_ERROR = "error"
STATUS_INTERPRETER = "interpreter-correctness-only"
STATUS_IMPLAUSIBLE = "implausible"


# --------------------------------------------------------------------------
# Kernel registry
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class KernelSpec:
    """How to benchmark one kernel module (see the brief's interface table)."""

    name: str  # module name under kernels/
    launcher: str  # the public launcher's name in the module
    metric: str  # "bandwidth" or "flops": what its fraction of ceiling uses
    shapes: dict[str, list[dict]]  # profile -> shape parameters
    make_inputs: Callable  # (params, dtype, device, seed) -> tuple of tensors
    model: Callable  # (module, params, itemsize) -> (bytes, flops)
    error_bound: Callable  # (inputs64, truth64, dtype, params) -> bound
    shape_text: Callable  # params -> "32768x4096"
    kwargs: Callable = lambda params: {}  # keyword arguments of every call
    library: dict[str, Callable] = field(default_factory=dict)  # name -> fn
    eager_is: str = ""  # what the eager reference calls, for the record
    r_baselines: tuple[str, ...] = ("eager", "compile")
    # provider -> largest speedup of the custom kernel the byte counts allow.
    max_speedup: dict[str, float] = field(default_factory=dict)
    triton_config: Callable | None = None  # (module, params, dtype) -> dict
    dtype_cuda: torch.dtype = torch.bfloat16
    dtype_cpu: torch.dtype = torch.float32


def random_inputs(shape, dtype, device, seed):
    """Normal values pushed at least 0.25 away from zero (never zeros: they
    can make a kernel look faster and hide unwritten outputs)."""
    generator = torch.Generator(device=device).manual_seed(seed)
    values = torch.randn(shape, generator=generator, device=device, dtype=torch.float32)
    values = torch.where(values < 0, values - 0.25, values + 0.25)
    return values.to(dtype)


def _seeds(seed: int, count: int) -> list[int]:
    return [zlib.crc32(f"{seed}:{i}".encode()) for i in range(count)]


def _eps(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps


EPS32 = torch.finfo(torch.float32).eps


def rows_cols_inputs(count):
    def make(params, dtype, device, seed):
        shape = (params["rows"], params["cols"])
        return tuple(
            random_inputs(shape, dtype, device, s) for s in _seeds(seed, count)
        )

    return make


def numel_inputs(params, dtype, device, seed):
    return (random_inputs((params["numel"],), dtype, device, seed),)


def matmul_inputs(params, dtype, device, seed):
    sa, sb = _seeds(seed, 2)
    return (
        random_inputs((params["M"], params["K"]), dtype, device, sa),
        random_inputs((params["K"], params["N"]), dtype, device, sb),
    )


def attention_inputs(params, dtype, device, seed):
    shape = (params["B"], params["H"], params["S"], params["D"])
    return tuple(random_inputs(shape, dtype, device, s) for s in _seeds(seed, 3))


# Error bounds: |out - truth| <= bound, elementwise, with truth in float64.
# Two ulps of the output dtype cover round-to-nearest on the GPU and the
# interpreter's truncation to bfloat16; the float32 terms cover accumulation
# in a different order than the float64 reference.


def elementwise_bound(inputs, truth, dtype, params):
    return 2 * _eps(dtype) * truth.abs()


def sum_bound(inputs, truth, dtype, params):
    (x,) = inputs
    return 2 * _eps(dtype) * truth.abs() + 2 * EPS32 * x.abs().sum()


def cumsum_bound(inputs, truth, dtype, params):
    (x,) = inputs
    return 2 * _eps(dtype) * truth.abs() + 2 * EPS32 * torch.cumsum(x.abs(), 0)


def matmul_bound(inputs, truth, dtype, params):
    a, b = inputs
    spread = a.abs() @ b.abs()
    return 2 * _eps(dtype) * truth.abs() + 2 * math.sqrt(params["K"]) * EPS32 * spread


def softmax_bound(inputs, truth, dtype, params):
    relative = 2 * _eps(dtype) + 8 * math.sqrt(params["cols"]) * EPS32
    return relative * truth.abs()


def attention_bound(inputs, truth, dtype, params):
    # Rounding the probabilities to the input dtype perturbs the weight of
    # each of the n keys a query sees by about one ulp, at random, so the
    # output moves by about eps * rms(v) / sqrt(n). Eager attention also
    # rounds the scores, an error that grows with their size (rms q * rms k)
    # and has a long tail: on bf16 CPU runs at S = 4096 its largest error
    # reached about half of this bound, while dropping one key of the 4096
    # exceeded it twice over.
    q, k, v = inputs
    v_rms = float(v.pow(2).mean().sqrt())
    score_rms = float(q.pow(2).mean().sqrt() * k.pow(2).mean().sqrt())
    S = params["S"]
    seen = torch.full((S, 1), float(S), dtype=torch.float64, device=truth.device)
    if params["causal"]:  # query i sees keys 0..i
        seen = torch.arange(1, S + 1, dtype=torch.float64, device=truth.device)
        seen = seen.view(S, 1)
    rounding = 96 * (1 + score_rms) * _eps(dtype) / seen.sqrt()
    spread = rounding + 4 * math.sqrt(S) * EPS32
    return 2 * _eps(dtype) * truth.abs() + spread * v_rms


def exact_bound(inputs, truth, dtype, params):
    return torch.zeros_like(truth)


def module_constants(module, params, dtype) -> dict:
    """Upper-case integer constants of a module: its fixed launch config."""
    return {
        name: value
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, int) and not isinstance(value, bool)
    }


def _dataclass_dict(config) -> dict:
    return {k: getattr(config, k) for k in config.__dataclass_fields__}


def matmul_config(module, params, dtype):
    return {
        **_dataclass_dict(module.CONFIGS[dtype]),
        "dot_precision": module.DOT_PRECISION[dtype],
    }


def attention_config(module, params, dtype):
    return _dataclass_dict(module.config_for(dtype, params["D"]))


def softmax_config(module, params, dtype):
    cols = params["cols"]
    if cols <= module.FUSED_MAX_BLOCK:
        block = 1 << max(0, (cols - 1).bit_length())
        return {
            "version": "v1",
            "BLOCK": block,
            "num_warps": module.fused_num_warps(block),
        }
    return {
        "version": "v2",
        "BLOCK": module.ONLINE_BLOCK,
        "num_warps": module.ONLINE_WARPS,
    }


def sdpa(q, k, v, causal=False):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)


def _rc(rows, cols):
    return {"rows": rows, "cols": cols}


# H200: L2 is about 60 MB, so HBM-bound shapes keep working sets >= 4x L2
# (>= 256 MB here); `full` adds L2-sized and awkward shapes for contrast.
REGISTRY: dict[str, KernelSpec] = {
    spec.name: spec
    for spec in (
        KernelSpec(
            name="residual_add_relu",
            launcher="residual_add_relu",
            metric="bandwidth",
            shapes={
                "tiny": [_rc(3, 1031)],
                "quick": [_rc(32768, 4096)],
                "full": [
                    _rc(1024, 1024),
                    _rc(8192, 4096),
                    _rc(32768, 4096),
                    _rc(65536, 4096),
                    _rc(50021, 4099),
                ],
            },
            make_inputs=rows_cols_inputs(2),
            model=lambda m, p, size: (
                m.bytes_moved(p["rows"] * p["cols"], size),
                m.flops(p["rows"] * p["cols"]),
            ),
            error_bound=elementwise_bound,
            shape_text=lambda p: f"{p['rows']}×{p['cols']}",
            eager_is="torch.relu(x + residual): two kernels",
            # relu(x + r) moves 3N elements; eager's two kernels about 5N.
            max_speedup={"eager": 5 / 3, "compile": 1.0},
        ),
        KernelSpec(
            name="reduction",
            launcher="reduce_sum",
            metric="bandwidth",
            shapes={
                "tiny": [{"numel": 9001}],
                "quick": [{"numel": 1 << 28}],
                "full": [
                    {"numel": 1 << 20},
                    {"numel": 1 << 24},
                    {"numel": 1 << 28},
                    {"numel": (1 << 29) + 3},
                ],
            },
            make_inputs=numel_inputs,
            model=lambda m, p, size: (
                m.bytes_moved(p["numel"], size),
                m.flops(p["numel"]),
            ),
            error_bound=sum_bound,
            shape_text=lambda p: f"{p['numel']}",
            eager_is="torch.sum (the library op)",
        ),
        KernelSpec(
            name="matmul",
            launcher="matmul",
            metric="flops",
            shapes={
                "tiny": [{"M": 65, "N": 47, "K": 33}],
                "quick": [{"M": 8192, "N": 8192, "K": 8192}],
                "full": [
                    {"M": 1024, "N": 1024, "K": 1024},
                    {"M": 4096, "N": 4096, "K": 4096},
                    {"M": 8192, "N": 8192, "K": 8192},
                    {"M": 8191, "N": 8193, "K": 4095},
                ],
            },
            make_inputs=matmul_inputs,
            model=lambda m, p, size: (
                m.bytes_moved(p["M"], p["N"], p["K"], size),
                m.flops(p["M"], p["N"], p["K"]),
            ),
            error_bound=matmul_bound,
            shape_text=lambda p: f"{p['M']}×{p['N']}×{p['K']}",
            eager_is="a @ b, i.e. torch.matmul (the library op)",
            triton_config=matmul_config,
        ),
        KernelSpec(
            name="softmax",
            launcher="softmax",
            metric="bandwidth",
            shapes={
                "tiny": [_rc(7, 1000)],
                "quick": [_rc(32768, 4096)],
                "full": [
                    _rc(4096, 1024),
                    _rc(32768, 4096),
                    _rc(16384, 8191),
                    _rc(2048, 65536),
                ],
            },
            make_inputs=rows_cols_inputs(1),
            model=lambda m, p, size: (
                m.bytes_moved(p["rows"], p["cols"], size),
                m.flops(p["rows"], p["cols"]),
            ),
            error_bound=softmax_bound,
            shape_text=lambda p: f"{p['rows']}×{p['cols']}",
            eager_is="torch.softmax (the library op)",
            triton_config=softmax_config,
        ),
        KernelSpec(
            name="attention",
            launcher="attention",
            metric="flops",
            shapes={
                "tiny": [{"B": 1, "H": 2, "S": 65, "D": 32, "causal": True}],
                "quick": [{"B": 4, "H": 16, "S": 4096, "D": 128, "causal": False}],
                "full": [
                    {"B": 4, "H": 16, "S": 1024, "D": 128, "causal": False},
                    {"B": 4, "H": 16, "S": 4096, "D": 128, "causal": False},
                    {"B": 4, "H": 16, "S": 4096, "D": 128, "causal": True},
                    {"B": 1, "H": 16, "S": 8192, "D": 128, "causal": False},
                ],
            },
            make_inputs=attention_inputs,
            model=lambda m, p, size: (
                m.bytes_moved(p["B"], p["H"], p["S"], p["D"], size),
                m.flops(p["B"], p["H"], p["S"], p["D"], p["causal"]),
            ),
            error_bound=attention_bound,
            shape_text=lambda p: (
                f"B{p['B']} H{p['H']} S{p['S']} D{p['D']}"
                + (" causal" if p["causal"] else "")
            ),
            kwargs=lambda p: {"causal": p["causal"]},
            library={"sdpa": sdpa},
            eager_is="matmul, softmax, matmul with the S×S scores in memory",
            r_baselines=("eager", "compile", "sdpa"),
            triton_config=attention_config,
        ),
        KernelSpec(
            name="scan",
            launcher="cumsum",
            metric="bandwidth",
            shapes={
                "tiny": [{"numel": 3001}],
                "quick": [{"numel": 1 << 28}],
                "full": [
                    {"numel": 1 << 20},
                    {"numel": 1 << 24},
                    {"numel": 1 << 28},
                    {"numel": (1 << 28) + 7},
                ],
            },
            make_inputs=numel_inputs,
            model=lambda m, p, size: (
                m.bytes_moved(p["numel"], size),
                m.flops(p["numel"]),
            ),
            error_bound=cumsum_bound,
            shape_text=lambda p: f"{p['numel']}",
            eager_is="torch.cumsum (the library op)",
            # A float32 scan: bfloat16 prefix sums of 2**28 values keep no digits.
            dtype_cuda=torch.float32,
        ),
        KernelSpec(
            name="transpose",
            launcher="transpose",
            metric="bandwidth",
            shapes={
                "tiny": [_rc(67, 131)],
                "quick": [_rc(16384, 16384)],
                "full": [
                    _rc(1024, 1024),
                    _rc(16384, 16384),
                    _rc(8192, 32768),
                    _rc(16383, 8191),
                ],
            },
            make_inputs=rows_cols_inputs(1),
            model=lambda m, p, size: (
                m.bytes_moved(p["rows"], p["cols"], size),
                m.flops(p["rows"], p["cols"]),
            ),
            error_bound=exact_bound,
            shape_text=lambda p: f"{p['rows']}×{p['cols']}",
        ),
    )
}


def available_kernels() -> list[str]:
    """Registered kernels whose module exists (others are still being written)."""
    return [name for name in REGISTRY if kernel_source_paths(name, ROOT)]


# --------------------------------------------------------------------------
# Identity, software, device
# --------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_identity(commit_override: str | None) -> dict:
    commit = _git("rev-parse", "HEAD")
    changed = _git("status", "--porcelain", "--untracked-files=no")
    if commit is None and commit_override:
        return {"commit": commit_override, "dirty": None, "commit_source": "--commit"}
    return {
        "commit": commit or "unknown",
        "dirty": None if changed is None else bool(changed),
        "changed_files": [] if not changed else changed.splitlines(),
        "commit_source": "git" if commit else "unavailable",
    }


def software_info() -> dict:
    import numpy
    import triton

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "triton": triton.__version__,
        "numpy": numpy.__version__,
        "platform": platform.platform(),
    }


def _nvidia_smi(device_index: int, uuid: str | None) -> dict:
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
        "l2_bytes": timing.l2_cache_bytes(device),
        "memory_bytes": props.total_memory,
        "cuda_runtime": torch.version.cuda,
        "clocks_before": _nvidia_smi(index, str(uuid) if uuid else None),
    }
    info["driver"] = info["clocks_before"].get("driver_version")
    return info


# --------------------------------------------------------------------------
# Correctness
# --------------------------------------------------------------------------


def check_output(out, truth, expected_dtype, bound) -> dict:
    """Compare out with the float64 truth under an elementwise bound."""
    result = {"correct": False, "error_max_abs": None, "error_bound_ratio": None}
    if not isinstance(out, torch.Tensor):
        result["reason"] = f"returned {type(out).__name__}, not a tensor"
        return result
    if tuple(out.shape) != tuple(truth.shape):
        result["reason"] = f"shape {tuple(out.shape)} != {tuple(truth.shape)}"
        return result
    if out.dtype != expected_dtype:
        result["reason"] = f"dtype {out.dtype} != {expected_dtype}"
        return result
    error = (out.to(torch.float64) - truth).abs()
    if error.numel() == 0:
        result.update(correct=True, error_max_abs=0.0, error_bound_ratio=0.0)
        return result
    bound = torch.as_tensor(bound, dtype=torch.float64, device=error.device)
    if bool(torch.isnan(error).any()):
        result["reason"] = "NaN in the output"
        return result
    over = error > bound
    ratio = torch.where(bound > 0, error / bound.clamp_min(1e-300), error * math.inf)
    ratio = torch.where(error == 0, torch.zeros_like(ratio), ratio)
    result["error_max_abs"] = float(error.max())
    worst = float(ratio.max())
    result["error_bound_ratio"] = worst if math.isfinite(worst) else None
    if bool(over.any()):
        result["reason"] = f"{int(over.sum())} elements outside the error bound"
        return result
    result["correct"] = True
    return result


# --------------------------------------------------------------------------
# Ceilings
# --------------------------------------------------------------------------


def ceiling_sizes(device: str, profile: str, l2_bytes: int | None) -> dict:
    if device == "cpu":
        return {"copy_bytes": 32 << 20, "matmul": (256, 256, 256), "dtype": "float32"}
    copy_bytes = max(1 << 30, 8 * (l2_bytes or 0))
    return {"copy_bytes": copy_bytes, "matmul": (8192, 8192, 8192), "dtype": "bfloat16"}


def measure_ceilings(device, profile, l2_bytes, run_settings) -> dict:
    sizes = ceiling_sizes(device, profile, l2_bytes)
    n = sizes["copy_bytes"]
    src = torch.randint(0, 256, (n,), dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    M, N, K = sizes["matmul"]
    dtype = getattr(torch, sizes["dtype"])
    a = random_inputs((M, K), dtype, device, 1)
    b = random_inputs((K, N), dtype, device, 2)
    timings = timing.time_interleaved(
        {"copy": lambda: dst.copy_(src), "matmul": lambda: torch.matmul(a, b)},
        device=device,
        **run_settings,
    )
    copy_t, mm_t = timings["copy"], timings["matmul"]
    copy_moved = 2 * n  # read plus write
    where = "host memory" if device == "cpu" else "device-to-device"
    matmul_flops = 2 * M * N * K
    result = {
        "copy": {
            "bytes_moved": copy_moved,
            "what": f"{where} copy, bytes read plus bytes written",
            "bandwidth_bytes_per_s": copy_moved / (copy_t.median_ms * 1e-3),
            "best_bandwidth_bytes_per_s": copy_moved / (min(copy_t.samples_ms) * 1e-3),
            "timing": _timing_dict(copy_t),
        },
        "matmul": {
            "shape": [M, N, K],
            "dtype": sizes["dtype"],
            "flops": matmul_flops,
            "what": "torch.matmul on random data",
            "flop_rate_per_s": matmul_flops / (mm_t.median_ms * 1e-3),
            "best_flop_rate_per_s": matmul_flops / (min(mm_t.samples_ms) * 1e-3),
            "timing": _timing_dict(mm_t),
        },
    }
    return result


def datasheet_for(device_name: str) -> dict | None:
    for key, figures in DATASHEETS.items():
        if key in device_name:
            return figures
    return None


def _timing_dict(t: timing.Timing) -> dict:
    data = t.to_dict()
    data.pop("provider")
    data.pop("round_order")
    for key in ("first_call_ms", "median_ms", "p20_ms", "p80_ms", "warmup_ms"):
        data[key] = round(data[key], 6)
    data["samples_ms"] = [round(s, 6) for s in data["samples_ms"]]
    return data


# --------------------------------------------------------------------------
# One shape: correctness, timing, re-check
# --------------------------------------------------------------------------


def _sync(device):
    if device != "cpu":
        torch.cuda.synchronize()


def _call_first(fn, device):
    """One call, timed on the host around a device sync (it may compile)."""
    _sync(device)
    start = time.perf_counter()
    out = fn()
    _sync(device)
    return out, (time.perf_counter() - start) * 1e3


def _error_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 500 else text[:497] + "..."


def run_shape(spec, module, params, device, seed, ceilings, l2_bytes, settings):
    """Every provider's row for one shape."""
    dtype = spec.dtype_cpu if device == "cpu" else spec.dtype_cuda
    inputs = spec.make_inputs(params, dtype, device, seed)
    kwargs = spec.kwargs(params)
    reference = getattr(module, f"{spec.name}_ref", None) or getattr(
        module, f"{spec.launcher}_ref"
    )
    launcher = getattr(module, spec.launcher)
    itemsize = inputs[0].element_size()
    bytes_moved, flops = spec.model(module, params, itemsize)

    # The float64 truth, from copies, so no provider can touch it. The
    # copies are exact, so they also tell whether a provider wrote into
    # its inputs.
    inputs64 = tuple(t.to(torch.float64) for t in inputs)
    truth = reference(*inputs64, **kwargs)
    bound = spec.error_bound(inputs64, truth, dtype, params)

    torch._dynamo.reset()  # a fresh compile per shape: no dynamic recompiles
    compiled = torch.compile(reference, dynamic=False)
    callables = {
        "eager": (reference, "eager"),
        "compile": (compiled, "compile"),
        **{name: (fn, "library") for name, fn in spec.library.items()},
        "triton": (launcher, "triton"),
    }
    base_row = {
        "kernel": spec.name,
        "shape": params,
        "shape_text": spec.shape_text(params),
        "dtype": str(dtype).removeprefix("torch."),
        "layout": "contiguous",
        "device_kind": "cpu" if device == "cpu" else "cuda",
        "bytes_moved": bytes_moved,
        "flops": flops,
        "metric": spec.metric,
        "working_set_bytes": sum(t.numel() * t.element_size() for t in inputs)
        + truth.numel() * itemsize,
        "seed": seed,
    }
    rows: dict[str, dict] = {}
    timed: dict[str, Callable] = {}
    last_out: dict[str, object] = {}
    for name, (fn, kind) in callables.items():
        row = {**base_row, "provider": name, "provider_kind": kind, "timed": False}
        if kind == "triton" and spec.triton_config is not None:
            row["triton_config"] = spec.triton_config(module, params, dtype)
        elif kind == "triton":
            row["triton_config"] = module_constants(module, params, dtype)
        rows[name] = row

        def call(fn=fn):
            return fn(*inputs, **kwargs)

        try:
            out, first_ms = _call_first(call, device)
        except Exception as exc:  # recorded, never silently dropped
            row.update(status=STATUS_ERROR, error=_error_text(exc), correct=False)
            continue
        check = check_output(out, truth, dtype, bound)
        del out
        if not inputs_unchanged(inputs, inputs64):
            restore_inputs(inputs, inputs64)  # pristine for the next provider
            check.update(correct=False, reason="it wrote into its inputs")
        row.update(check)
        row["flags"] = []
        if not check["correct"]:
            if kind == "triton":  # the kernel under test: never timed
                row["status"] = STATUS_INCORRECT
                continue
            # PyTorch's own result is the baseline being compared against:
            # keep timing it, but say that it falls outside the bound.
            row["flags"].append(
                f"baseline outside the error bound: {check.get('reason', '')}"
            )
        if kind == "triton" and device == "cpu":
            row["status"] = STATUS_INTERPRETER
            row["note"] = (
                "Triton interpreter on the CPU: checked for correctness, "
                "not timed (interpreter wall time is not device speed)"
            )
            continue
        row["first_call_ms"] = round(first_ms, 6)

        def keep_last(fn=call, name=name):
            last_out[name] = fn()

        timed[name] = keep_last

    if timed:
        results = timing.time_interleaved(timed, device=device, **settings)
        for name, t in results.items():
            row = rows[name]
            data = _timing_dict(t)
            data.pop("first_call_ms")  # the correctness call was the first
            row.update(data, timed=True, status=STATUS_OK)
            after = check_output(last_out.pop(name), truth, dtype, bound)
            row["correct_after_timing"] = after["correct"]
            row["error_after_timing_max_abs"] = after["error_max_abs"]
            if not after["correct"] and row["provider_kind"] == "triton":
                row["status"] = STATUS_INCORRECT
                row["reason"] = "after timing: " + after.get("reason", "")
            elif not after["correct"]:
                row["flags"].append(
                    "baseline outside the error bound after timing: "
                    + after.get("reason", "")
                )
        if not inputs_unchanged(inputs, inputs64):
            for name in results:
                rows[name]["flags"].append("inputs changed during the timed calls")
                if rows[name]["provider_kind"] == "triton":
                    rows[name]["status"] = STATUS_INCORRECT
    last_out.clear()
    finish_rows(spec, list(rows.values()), device, ceilings, l2_bytes)
    return list(rows.values())


def inputs_unchanged(inputs, exact_copies) -> bool:
    return all(
        torch.equal(t.to(torch.float64), c)
        for t, c in zip(inputs, exact_copies, strict=True)
    )


def restore_inputs(inputs, exact_copies) -> None:
    for t, c in zip(inputs, exact_copies, strict=True):
        t.copy_(c.to(t.dtype))


def finish_rows(spec, rows, device, ceilings, l2_bytes):
    """Achieved rates, fractions of ceiling, plausibility, then labels."""
    medians = {
        r["provider"]: r["median_ms"]
        for r in rows
        if r.get("timed") and r["status"] == STATUS_OK
    }
    for row in rows:
        row.setdefault("flags", [])
        if not row.get("timed"):
            continue
        seconds = row["median_ms"] * 1e-3
        if spec.metric == "bandwidth":
            row["achieved_per_s"] = row["bytes_moved"] / seconds
            ceiling = ceilings["copy"]["bandwidth_bytes_per_s"]
        else:
            row["achieved_per_s"] = row["flops"] / seconds
            ceiling = ceilings["matmul"]["flop_rate_per_s"]
        if device == "cpu":
            # Host timings of cache-resident tiny shapes: no fraction, no bound.
            row["fraction_of_ceiling"] = None
            row["plausible"] = None
            continue
        row["fraction_of_ceiling"] = row["achieved_per_s"] / ceiling
        row["flags"] += plausibility_flags(
            row["bytes_moved"],
            row["median_ms"],
            ceilings["copy"]["best_bandwidth_bytes_per_s"],
        )
        if row["provider_kind"] == "triton":
            row["flags"] += speedup_flags(spec, row["median_ms"], medians)
        row["plausible"] = not any(f.startswith("impossible") for f in row["flags"])
        if not row["plausible"]:
            row["status"] = STATUS_IMPLAUSIBLE
    # Labels from the best time that survived the checks above.
    valid = [r["median_ms"] for r in rows if r.get("timed") and r["status"] == "ok"]
    labels = classify(
        spec.metric,
        min(valid, default=None),
        rows[0]["working_set_bytes"],
        l2_bytes,
        device != "cpu",
    )
    for row in rows:
        row["labels"] = labels


def speedup_flags(spec, custom_ms, medians) -> list[str]:
    """Speedups over a baseline beyond what the byte counts allow."""
    flags = []
    for other, limit in spec.max_speedup.items():
        if other in medians and custom_ms > 0:
            speedup = medians[other] / custom_ms
            if speedup > limit * METHOD["suspect_margin"]:
                flags.append(
                    f"suspect: {speedup:.2f}x faster than {other}; "
                    f"the byte counts allow about {limit:.2f}x"
                )
    return flags


# --------------------------------------------------------------------------
# Result file: new name, atomic rewrites, never overwriting another run
# --------------------------------------------------------------------------


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "device"


class ResultWriter:
    """Writes one run's result file, claiming a name no other file has.

    Every write goes to a temporary file first; the first write links it to
    the final name (os.link fails if that name exists, so another run's file
    is never replaced) and later writes os.replace our own file.
    """

    def __init__(self, out_dir: Path, stem: str):
        self.out_dir = Path(out_dir)
        self.stem = stem
        self.path: Path | None = None

    def _candidates(self):
        yield self.out_dir / f"{self.stem}.json"
        for i in range(2, 10_000):
            yield self.out_dir / f"{self.stem}-{i}.json"

    def write(self, data: dict) -> Path:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, indent=1, allow_nan=False) + "\n"
        tmp = self.out_dir / f".{self.stem}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if self.path is not None:
            os.replace(tmp, self.path)
            return self.path
        try:
            for candidate in self._candidates():
                if self._claim(tmp, candidate):
                    self.path = candidate
                    return candidate
            raise FileExistsError(f"no free result name for {self.stem}")
        finally:
            if tmp.exists():
                tmp.unlink()

    @staticmethod
    def _claim(tmp: Path, candidate: Path) -> bool:
        try:
            os.link(tmp, candidate)
            return True
        except FileExistsError:
            return False
        except OSError:  # no hard links here: reserve the name exclusively
            try:
                fd = os.open(candidate, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return False
            os.close(fd)
            os.replace(tmp, candidate)
            return True


def _json_safe(value):
    """Non-finite floats become None (strict JSON has no NaN or inf)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Time kernels against PyTorch; write results/bench/*.json.",
        epilog="Exit codes: 0 ok, 2 usage, 3 no CUDA device, "
        "4 some row incorrect/failed/implausible, 130 interrupted.",
    )
    parser.add_argument("kernels", nargs="*", metavar="KERNEL")
    parser.add_argument("--profile", choices=PROFILES, default="quick")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--commit", help="commit to record when the tree is not a git checkout"
    )
    parser.add_argument("--seed", type=int, help="input seed (default: random)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--list", action="store_true", help="list kernels, shapes")
    args = parser.parse_args(argv)
    args.argv = list(argv)
    return args


def configure_cpu_compile():
    """Inductor on a CPU: skip the slow compiler probes (an ISA check per
    vector width, a precompiled header) that cost 10-20 s on first use."""
    import torch._inductor.config as inductor_config

    changed = {}
    if hasattr(inductor_config.cpp, "vec_isa_ok"):
        inductor_config.cpp.vec_isa_ok = True
        changed["cpp.vec_isa_ok"] = True
    if hasattr(inductor_config, "cpp_cache_precompile_headers"):
        inductor_config.cpp_cache_precompile_headers = False
        changed["cpp_cache_precompile_headers"] = False
    return changed


def list_registry(out=sys.stdout):
    present = set(available_kernels())
    for name, spec in REGISTRY.items():
        state = "" if name in present else "  (module not written yet)"
        print(f"{name}{state}", file=out)
        for profile in PROFILES:
            shapes = ", ".join(spec.shape_text(p) for p in spec.shapes[profile])
            print(f"  {profile}: {shapes}", file=out)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list:
        list_registry()
        return EXIT_OK
    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        print(
            "bench: no CUDA device is available (torch "
            f"{torch.__version__}, CUDA {torch.version.cuda}). To run the same "
            "harness on CPU tensors with host timers, use --device cpu.",
            file=sys.stderr,
        )
        return EXIT_NO_CUDA
    if device == "cuda" and os.environ.get("TRITON_INTERPRET") == "1":
        print(
            "bench: TRITON_INTERPRET=1 would time the Triton interpreter on a "
            "GPU run; unset it.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before any kernel is imported
    present = available_kernels()
    names = args.kernels or present
    unknown = [n for n in names if n not in present]
    if unknown:
        print(
            f"bench: unknown or unwritten kernel(s) {', '.join(unknown)}; "
            f"available: {', '.join(present) or 'none'}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return run(args, names)


def run(args, names) -> int:
    from tqdm import tqdm

    device = args.device
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    compile_settings = configure_cpu_compile() if device == "cpu" else {}
    started = dt.datetime.now(dt.UTC)
    git = git_identity(args.commit)
    dev = device_info(device)
    l2_bytes = dev.get("l2_bytes")
    rounds, repeats = PROFILE_ROUNDS[args.profile]
    flush_bytes = METHOD["flush_l2_multiple"] * l2_bytes if device != "cpu" else 0
    settings = {
        "rounds": rounds,
        "repeats_per_round": repeats,
        "warmup_ms": METHOD["warmup_ms"],
        "flush_bytes": flush_bytes,
    }
    modules = {name: importlib.import_module(f"kernels.{name}") for name in names}
    device_slug = "cpu" if device == "cpu" else slug(dev["name"])
    short = git["commit"][:7] if git["commit"] != "unknown" else "nocommit"
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    writer = ResultWriter(args.out, f"{stamp}-{device_slug}-{args.profile}-{short}")
    kernel_meta = {}
    for name in names:
        spec = REGISTRY[name]
        kernel_meta[name] = {
            "sources": {
                p.relative_to(ROOT).as_posix(): sha256_file(p)
                for p in kernel_source_paths(name, ROOT)
            },
            "launcher": spec.launcher,
            "metric": spec.metric,
            "eager_is": spec.eager_is,
            "r_baselines": list(spec.r_baselines),
            "providers": ["eager", "compile", *spec.library, "triton"],
        }
    data = {
        "schema_version": SCHEMA_VERSION,
        "run_status": "running",
        "identity": {
            **git,
            "runner_sources": {
                p: sha256_file(ROOT / p)
                for p in (
                    "scripts/bench.py",
                    "scripts/timing.py",
                    "scripts/bench_embed.py",
                )
            },
            "argv": args.argv,
            "started_utc": started.isoformat(timespec="seconds"),
            "finished_utc": None,
            "profile": args.profile,
            "device_kind": "cpu" if device == "cpu" else "cuda",
            "seed": seed,
        },
        "software": {
            **software_info(),
            # The driver as nvidia-smi reports it; CUDA is the version torch
            # was built with (torch_cuda above).
            "driver": dev.get("driver"),
        },
        "device": dev,
        "settings": {
            **settings,
            "timer": timing.TIMER_HOST if device == "cpu" else timing.TIMER_CUDA,
            "triton_interpret": os.environ.get("TRITON_INTERPRET") == "1",
            "inductor": compile_settings,
            "allow_tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
            "allow_bf16_reduced_precision_reduction": (
                torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
            ),
            "launch_bound_ms": LAUNCH_BOUND_MS,
        },
        "kernels": kernel_meta,
        "ceilings": None,
        "rows": [],
        "shape_errors": [],
    }
    jobs = [
        (name, params)
        for name in names
        for params in REGISTRY[name].shapes[args.profile]
    ]
    bar = tqdm(
        total=len(jobs) + 1, desc="ceilings", unit="step", disable=args.no_progress,
        file=sys.stderr,
    )  # fmt: skip
    exit_code = EXIT_OK
    try:
        writer.write(_json_safe(data))
        ceilings = measure_ceilings(device, args.profile, l2_bytes, settings)
        datasheet = datasheet_for(dev["name"]) if device != "cpu" else None
        ceilings["datasheet"] = datasheet
        data["ceilings"] = ceilings
        writer.write(_json_safe(data))
        bar.update()
        for name, params in jobs:
            spec = REGISTRY[name]
            bar.set_description(f"{name} {spec.shape_text(params)}")
            shape_seed = zlib.crc32(f"{seed}:{name}:{sorted(params.items())}".encode())
            try:
                rows = run_shape(
                    spec, modules[name], params, device, shape_seed, ceilings,
                    l2_bytes, settings,
                )  # fmt: skip
            except Exception as exc:  # e.g. out of memory: keep the other shapes
                data["shape_errors"].append(
                    {
                        "kernel": name,
                        "shape": params,
                        "shape_text": spec.shape_text(params),
                        "error": _error_text(exc),
                    }
                )
                rows = []
                exit_code = EXIT_BAD_ROWS
            data["rows"].extend(rows)
            if any(r["status"] not in (STATUS_OK, STATUS_INTERPRETER) for r in rows):
                exit_code = EXIT_BAD_ROWS
            writer.write(_json_safe(data))
            bar.update()
            if device != "cpu":
                torch.cuda.empty_cache()
        data["run_status"] = "complete"
    except KeyboardInterrupt:
        data["run_status"] = "interrupted"
        exit_code = EXIT_INTERRUPTED
    finally:
        bar.close()
        if device != "cpu":
            data["device"]["clocks_after"] = _nvidia_smi(dev["index"], dev.get("uuid"))
        data["identity"]["finished_utc"] = dt.datetime.now(dt.UTC).isoformat(
            timespec="seconds"
        )
        if data["run_status"] == "running":
            data["run_status"] = "failed"
        path = writer.write(_json_safe(data))
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"bench: wrote {shown}")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
