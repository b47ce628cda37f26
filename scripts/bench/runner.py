"""The benchmark harness: every kernel's descriptor, timed against PyTorch.

For each kernel (``kernels.descriptor.discover()``) and each shape of the
profile: fresh random inputs (never zeros), every provider checked against a
float64 reference before any timing (that first call is timed apart, since
it compiles; for the Triton row it also records what really launched), then
interleaved rounds (``scripts/bench/timing.py``) with an L2 flush before
every timed call, and the output of the timed calls checked again. Copy and
matmul ceilings are measured in the same run. The result goes to a new file
under ``results/bench/`` that is rewritten after every shape, so an
interrupted run keeps what it measured.

On a CPU the same harness runs with host timers (eager against
torch.compile); Triton runs in the interpreter there, so its rows are checked
for correctness and never timed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import math
import os
import signal
import sys
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import torch

from evidence import (
    ROOT,
    display_path,
    enum,
    kernel_source_paths,
    sha256_file,
    slug,
)
from evidence.method import (
    LAUNCH_BOUND_MS,
    METHOD,
    rounds_for,
)
from evidence.provenance import (
    device_info,
    git_identity,
    nvidia_smi,
    software_info,
)
from kernels.descriptor import Descriptor
from kernels.devices import figures_for
from kernels.inputs import nonzero_randn
from kernels.launches import record_launches, without_device_constexprs
from scripts.bench import timing
from scripts.bench.rows import (
    finish_rows,
)
from scripts.bench.writer import ResultWriter

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NO_CUDA = 3
EXIT_BAD_ROWS = 4
EXIT_INTERRUPTED = 130

DEFAULT_OUT = ROOT / "results" / "bench"
SCHEMA_VERSION = 2
RUNNER_FILES = (
    "scripts/bench/__main__.py",
    "scripts/bench/runner.py",
    "scripts/bench/timing.py",
    "scripts/bench/writer.py",
    "evidence/method.py",
)

# The statuses are defined once, in the schema (in this order there).
RUN_STATUSES = enum("bench", "run_status")
RUNNING, COMPLETE, INTERRUPTED, FAILED = RUN_STATUSES
ROW_STATUSES = enum("bench", "row_status")
STATUS_OK, STATUS_INCORRECT, STATUS_ERROR, STATUS_INTERPRETER, STATUS_IMPLAUSIBLE = (
    ROW_STATUSES
)


def torch_dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def dtype_for(desc: Descriptor, device: str) -> torch.dtype:
    return torch_dtype(desc.dtype_cpu if device == "cpu" else desc.dtype_cuda)


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


def inputs_unchanged(inputs, exact_copies) -> bool:
    return all(
        torch.equal(t.to(torch.float64), c)
        for t, c in zip(inputs, exact_copies, strict=True)
    )


def restore_inputs(inputs, exact_copies) -> None:
    for t, c in zip(inputs, exact_copies, strict=True):
        t.copy_(c.to(t.dtype))


# --------------------------------------------------------------------------
# Ceilings
# --------------------------------------------------------------------------


def ceiling_sizes(device: str, l2_bytes: int | None) -> dict:
    if device == "cpu":
        return {"copy_bytes": 32 << 20, "matmul": (256, 256, 256), "dtype": "float32"}
    copy_bytes = max(1 << 30, 8 * (l2_bytes or 0))
    return {"copy_bytes": copy_bytes, "matmul": (8192, 8192, 8192), "dtype": "bfloat16"}


def measure_ceilings(device, l2_bytes, run_settings) -> dict:
    sizes = ceiling_sizes(device, l2_bytes)
    n = sizes["copy_bytes"]
    src = torch.randint(0, 256, (n,), dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    M, N, K = sizes["matmul"]
    dtype = torch_dtype(sizes["dtype"])
    a = nonzero_randn((M, K), dtype, device, seed=1)
    b = nonzero_randn((K, N), dtype, device, seed=2)
    words = src.view(torch.int32)  # the same bytes, read as int32 words
    timings = timing.time_interleaved(
        {
            "copy": lambda: dst.copy_(src),
            "read": lambda: torch.amax(words),
            "matmul": lambda: torch.matmul(a, b),
        },
        device=device,
        **run_settings,
    )
    copy_t, read_t, mm_t = timings["copy"], timings["read"], timings["matmul"]
    copy_moved = 2 * n  # read plus write
    where = "host memory" if device == "cpu" else "device-to-device"
    matmul_flops = 2 * M * N * K
    return {
        "copy": {
            "bytes_moved": copy_moved,
            "what": f"{where} copy, bytes read plus bytes written",
            "bandwidth_bytes_per_s": copy_moved / (copy_t.median_ms * 1e-3),
            "best_bandwidth_bytes_per_s": copy_moved / (min(copy_t.samples_ms) * 1e-3),
            "timing": _timing_dict(copy_t),
        },
        "read": {
            "bytes_moved": n,
            "what": f"{where} read-only stream (a max over int32 words), bytes read",
            "bandwidth_bytes_per_s": n / (read_t.median_ms * 1e-3),
            "best_bandwidth_bytes_per_s": n / (min(read_t.samples_ms) * 1e-3),
            "timing": _timing_dict(read_t),
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


def datasheet_for(device_name: str) -> dict | None:
    """The published figures, shown beside the measured ceilings (never
    used as them)."""
    figures = figures_for(device_name)
    if figures is None:
        return None
    return {
        "bandwidth_bytes_per_s": figures.hbm_bytes_per_s,
        "bf16_dense_flop_per_s": figures.bf16_dense_flop_per_s,
        "source": figures.source,
    }


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


def _error_message(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 500 else text[:497] + "..."


def run_shape(desc: Descriptor, shape, device, seed, ceilings, l2_bytes, settings):
    """Every provider's row for one shape."""
    dtype = dtype_for(desc, device)
    inputs = desc.make_inputs(shape, dtype, device, seed)
    kwargs = desc.call_kwargs(shape)
    reference = desc.reference
    itemsize = inputs[0].element_size()

    # The float64 truth, from copies, so no provider can touch it. The
    # copies are exact, so they also tell whether a provider wrote into
    # its inputs.
    inputs64 = tuple(t.to(torch.float64) for t in inputs)
    truth = reference(*inputs64, **kwargs)
    bound = desc.error_bound(inputs64, truth, dtype, shape)

    torch._dynamo.reset()  # a fresh compile per shape: no dynamic recompiles
    compiled = torch.compile(reference, dynamic=False)
    callables = {
        "eager": (reference, "eager"),
        "compile": (compiled, "compile"),
        **{name: (fn, "library") for name, fn in desc.baselines.items()},
        "triton": (desc.launcher, "triton"),
    }
    base_row = {
        "kernel": desc.name,
        "shape": dict(shape),
        "shape_text": desc.shape_text(shape),
        "dtype": str(dtype).removeprefix("torch."),
        "layout": "contiguous",
        "device_kind": "cpu" if device == "cpu" else "cuda",
        "bytes_moved": desc.bytes_moved(shape, itemsize),
        "flops": desc.flops(shape),
        "metric": desc.metric,
        "working_set_bytes": sum(t.numel() * t.element_size() for t in inputs)
        + truth.numel() * itemsize,
        "seed": seed,
    }
    rows: dict[str, dict] = {}
    timed: dict[str, Callable] = {}
    last_out: dict[str, object] = {}
    for name, (fn, kind) in callables.items():
        row = {**base_row, "provider": name, "provider_kind": kind, "timed": False}
        rows[name] = row

        def call(fn=fn):
            return fn(*inputs, **kwargs)

        # The Triton row records what really launched during its first call.
        recorder = record_launches() if kind == "triton" else contextlib.nullcontext()
        failed = None
        with recorder as log:
            try:
                out, first_ms = timing.time_first_call(call, device)
            except Exception as exc:  # recorded, never silently dropped
                failed = exc
        if kind == "triton":
            launched = log.launches()
            row["launches"] = [launch.record() for launch in launched]
        if failed is not None:
            row.update(status=STATUS_ERROR, error=_error_message(failed), correct=False)
            continue
        check = check_output(out, truth, dtype, bound)
        del out
        if not inputs_unchanged(inputs, inputs64):
            restore_inputs(inputs, inputs64)  # pristine for the next provider
            check.update(correct=False, reason="it wrote into its inputs")
        row.update(check)
        row["flags"] = []
        if kind == "library":
            # Which backend a library op chose is part of its identity.
            row["device_kernels"] = timing.device_kernels(call, device)
        if kind == "triton" and check["correct"]:
            declared = desc.launch_config(dtype, shape)
            if without_device_constexprs(launched) != declared:
                # The artifact builder and the pages read the descriptor:
                # a result whose launches differ from it is not published.
                row.update(
                    status=STATUS_ERROR,
                    error="the launcher launched "
                    f"{row['launches']}, but the descriptor's launch_config "
                    f"says {[x.record() for x in declared]}",
                )
                continue
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
    finish_rows(desc, list(rows.values()), device, ceilings, l2_bytes)
    return list(rows.values())


def goal_shapes_first(descriptors, profile: str, device: str, l2_bytes) -> list:
    """(descriptor, shape) jobs: the shapes the goals are judged on first, the
    kernels taking turns, then the rest, so a run cut short by its time limit
    has measured what matters most for every kernel. A goal names its shape,
    or none: then it applies to every HBM-bound shape, estimated here as
    moving at least the method's multiple of L2 (the label needs the time)."""
    device_kind = "cpu" if device == "cpu" else "cuda"
    per_kernel, rest = [], []
    for desc in descriptors.values():
        goal = []
        per_kernel.append(goal)
        targets = [t.shape for g in desc.goals for t in (*g.must, *g.stretch)]
        itemsize = dtype_for(desc, device).itemsize
        for shape in desc.shapes_for(profile, device_kind):
            hbm = not l2_bytes or (
                desc.bytes_moved(shape, itemsize)
                >= METHOD["hbm_bound_multiple"] * l2_bytes
            )
            named = any(t is not None and dict(t) == dict(shape) for t in targets)
            unnamed = hbm and any(t is None for t in targets)
            (goal if named or unnamed else rest).append((desc, shape))
    # Round robin: each kernel's first goal shape, then each one's second...
    turns = itertools.zip_longest(*per_kernel)
    return [job for turn in turns for job in turn if job is not None] + rest


def _interrupt(signum, frame):
    """SIGTERM (a time limit, a cluster scheduler) ends the run as Ctrl-C
    does: the file is finished and marked interrupted."""
    raise KeyboardInterrupt


# --------------------------------------------------------------------------
# One run
# --------------------------------------------------------------------------


def _json_safe(value):
    """Non-finite floats become None (strict JSON has no NaN or inf)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


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


def kernel_meta(desc: Descriptor) -> dict:
    return {
        "sources": {
            p.relative_to(ROOT).as_posix(): sha256_file(p)
            for p in kernel_source_paths(desc.name, ROOT)
        },
        "title": desc.title,
        "launcher": desc.launcher.__name__,
        "metric": desc.metric,
        "stream": desc.stream,
        "eager_is": desc.eager_is,
        "r_baselines": list(desc.r_baselines),
        "providers": ["eager", "compile", *desc.baselines, "triton"],
    }


def run(args, descriptors: dict[str, Descriptor]) -> int:
    """Measure every descriptor's shapes for args.profile; write the file."""
    from tqdm import tqdm

    device = args.device
    device_kind = "cpu" if device == "cpu" else "cuda"
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    compile_settings = configure_cpu_compile() if device == "cpu" else {}
    started = dt.datetime.now(dt.UTC)
    git = git_identity(args.commit)
    dev = device_info(device)
    l2_bytes = dev.get("l2_bytes")
    rounds, repeats = rounds_for(args.profile, device_kind)
    flush_bytes = METHOD["flush_l2_multiple"] * l2_bytes if device != "cpu" else 0
    settings = {
        "rounds": rounds,
        "repeats_per_round": repeats,
        "warmup_ms": METHOD["warmup_ms"],
        "flush_bytes": flush_bytes,
    }
    device_slug = "cpu" if device == "cpu" else slug(dev["name"])
    short = git["commit"][:7] if git["commit"] != "unknown" else "nocommit"
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    cell = getattr(args, "cell_record", None)
    part = f"-cell{cell['index']}" if cell else ""  # jobs may start together
    writer = ResultWriter(
        args.out, f"{stamp}-{device_slug}-{args.profile}-{short}{part}"
    )
    data = {
        "schema_version": SCHEMA_VERSION,
        "run_status": RUNNING,
        "identity": {
            **git,
            "runner_sources": {p: sha256_file(ROOT / p) for p in RUNNER_FILES},
            "argv": args.argv,
            "started_utc": started.isoformat(timespec="seconds"),
            "finished_utc": None,
            "profile": args.profile,
            "device_kind": device_kind,
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
        "kernels": {name: kernel_meta(desc) for name, desc in descriptors.items()},
        "ceilings": None,
        "rows": [],
        "shape_errors": [],
    }
    jobs = goal_shapes_first(descriptors, args.profile, device, l2_bytes)
    only = getattr(args, "only_shape", None)  # one manifest cell's shape
    if only is not None:
        jobs = [(d, shape) for d, shape in jobs if dict(shape) == only]
        data["identity"]["cell"] = args.cell_record
    main_thread = threading.current_thread() is threading.main_thread()
    previous_sigterm = (
        signal.signal(signal.SIGTERM, _interrupt) if main_thread else None
    )
    bar = tqdm(
        total=len(jobs) + 1,
        desc="ceilings",
        unit="step",
        disable=args.no_progress,
        file=sys.stderr,
    )
    exit_code = EXIT_OK
    try:
        writer.write(_json_safe(data))
        ceilings = measure_ceilings(device, l2_bytes, settings)
        ceilings["datasheet"] = datasheet_for(dev["name"]) if device != "cpu" else None
        data["ceilings"] = ceilings
        writer.write(_json_safe(data))
        bar.update()
        for desc, shape in jobs:
            bar.set_description(f"{desc.name} {desc.shape_text(shape)}")
            key = f"{seed}:{desc.name}:{sorted(shape.items())}"
            shape_seed = zlib.crc32(key.encode())
            try:
                rows = run_shape(
                    desc, shape, device, shape_seed, ceilings, l2_bytes, settings
                )
            except Exception as exc:  # e.g. out of memory: keep the other shapes
                data["shape_errors"].append(
                    {
                        "kernel": desc.name,
                        "shape": dict(shape),
                        "shape_text": desc.shape_text(shape),
                        "error": _error_message(exc),
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
        data["run_status"] = COMPLETE
    except KeyboardInterrupt:
        data["run_status"] = INTERRUPTED
        exit_code = EXIT_INTERRUPTED
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous_sigterm)
        bar.close()
        if device != "cpu":
            data["device"]["clocks_after"] = nvidia_smi(dev["index"], dev.get("uuid"))
        data["identity"]["finished_utc"] = dt.datetime.now(dt.UTC).isoformat(
            timespec="seconds"
        )
        if data["run_status"] == RUNNING:
            data["run_status"] = FAILED
        path = writer.write(_json_safe(data))
        print(f"bench: wrote {display_path(Path(path))}")
    return exit_code
