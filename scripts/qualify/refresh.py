"""Committed qualification results, the comparison against PyTorch, and the
page text built from them (pages: Triton qualification project, Decision
memo, Qualify a generated kernel).

Usage (from the repository root)::

    python scripts/qualify_report.py verdicts  # re-run the committed verdicts
    python scripts/qualify_report.py corpus    # re-run the evaluator's corpus
    python scripts/qualify_report.py compare [--device cpu|cuda]

``verdicts`` writes ``results/qualify/<name>.<device>.json`` for the
project's kernel, the two teaching examples and the interview candidate;
``corpus`` writes ``results/qualify/corpus.cpu.json`` (every known-broken and
known-good candidate, what it must do, what the evaluator did); ``compare``
writes ``results/qualify/comparison.<device>.json``: eager PyTorch against
``torch.compile`` against the custom kernel at three shapes, timed with
``scripts/timing.py``. On a CPU the custom kernel runs in the Triton
interpreter for correctness only and is never timed.

The page functions at the end read only committed files, so the site build
stays fast and the same on every machine; tests check that the committed
files still match what the evaluator produces.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python scripts/qualify_report.py`
    sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "results" / "qualify"
KERNEL_FILE = "kernels/residual_add_relu.py"
ARTIFACT_FILE = ROOT / "results" / "artifacts" / "residual_add_relu.sm_90a.json"
SCHEMA_VERSION = 1

# name -> (candidate file, run every case?)
COMMITTED_VERDICTS = {
    "residual_add_relu": (KERNEL_FILE, False),
    "broken_tail_unwritten": (
        "snippets/triton_qualification/broken_tail_unwritten.py",
        False,
    ),
    "broken_nan_to_zero": (
        "snippets/triton_qualification/broken_nan_to_zero.py",
        False,
    ),
    "generated_candidate": (
        "snippets/qualify_a_generated_kernel/generated_candidate.py",
        True,
    ),
}

# Shapes for the comparison: on a CPU the interpreter must run the custom
# kernel once per shape (about a second per 2 million elements), on a GPU
# they are the benchmark runner's shapes for this kernel.
COMPARISON_SHAPES = {
    "cpu": [(3, 1031), (257, 1031), (1024, 1024)],
    "cuda": [(1024, 1024), (8192, 4096), (32768, 4096)],
}
COMPARISON_ROUNDS = {"cpu": (5, 10), "cuda": (5, 20)}  # rounds, repeats
# The files whose uncommitted changes make a comparison "dirty".
IDENTITY_FILES = (KERNEL_FILE, "scripts/qualify_report.py", "scripts/timing.py")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def result_path(name: str, device: str = "cpu") -> Path:
    return RESULTS / f"{name}.{device}.json"


def load_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def write_json(data: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------
# The corpus: candidates that must be rejected, and ones that must pass
# --------------------------------------------------------------------------

EXPECTED_RE = re.compile(r"^Expected(?: check)?: (?P<what>[\w-]+)\s*$", re.MULTILINE)


def corpus_files() -> list[str]:
    """Every corpus candidate, as a repository path: the broken and good
    files under tests/scripts/candidates/, the page examples, and the
    project's own kernel (which must qualify)."""
    broken = sorted((ROOT / "tests/scripts/candidates/broken").glob("*.py"))
    good = sorted((ROOT / "tests/scripts/candidates/good").glob("*.py"))
    examples = sorted((ROOT / "snippets/triton_qualification").glob("broken_*.py"))
    examples.append(ROOT / "snippets/qualify_a_generated_kernel/generated_candidate.py")
    paths = [p.relative_to(ROOT).as_posix() for p in broken + examples + good]
    return paths + [KERNEL_FILE]


def expectation(path: str) -> dict:
    """What a corpus file must do, read from its docstring: `Expected check:
    NAME` (rejected, first failing check NAME) or `Expected: qualified`."""
    import ast

    text = (ROOT / path).read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(text)) or ""
    reason = " ".join(doc.split("\n\n")[0].split())
    if path == KERNEL_FILE:
        return {"status": "qualified", "check": None, "reason": reason}
    match = EXPECTED_RE.search(doc)
    if not match:
        raise ValueError(f"{path}: the docstring has no 'Expected check:' line")
    what = match["what"]
    if what == "qualified":
        return {"status": "qualified", "check": None, "reason": reason}
    return {"status": "rejected", "check": what, "reason": reason}


def corpus_entry(path: str, verdict: dict) -> dict:
    first = verdict.get("first_failure")
    return {
        "path": path,
        **{f"expected_{k}": v for k, v in expectation(path).items()},
        "status": verdict["status"],
        "first_failure": first and {"case": first["case"], "check": first["check"]},
        "failed_checks": verdict["failed_checks"],
    }


# The corpus runs every case of every candidate, so it interprets values up
# to a smaller size than a single qualification does (2**21): the
# benchmark's 1024x1024 shape gets its launch checked, not its values, which
# keeps the whole corpus near 20 s of CPU time. No check's catch depends on
# values at that size.
CORPUS_MAX_NUMEL = 2**18
CORPUS_TIMEOUT_S = 5.0  # per case; the hanging candidate costs this much


def qualify_for_corpus(path: str) -> dict:
    from scripts import qualify

    return qualify.qualify(ROOT / path, "cpu", collect_all=True,
                           timeout_s=CORPUS_TIMEOUT_S,
                           max_numel=CORPUS_MAX_NUMEL)  # fmt: skip


def run_corpus(paths: list[str] | None = None) -> dict:
    from scripts import qualify

    entries = []
    for path in paths or corpus_files():
        entries.append(corpus_entry(path, qualify_for_corpus(path)))
        print(f"{entries[-1]['status']:9} {path}", flush=True)
    return {"schema": SCHEMA_VERSION, "device": "cpu",
            "interpreter_max_numel": CORPUS_MAX_NUMEL,
            "software": qualify.software(), "candidates": entries}  # fmt: skip


def kill_matrix(corpus: dict) -> dict[str, dict[str, list[str]]]:
    """check -> {"catches": candidates it rejects, "only": candidates no other
    check rejects}. A check whose "only" list is empty could be removed
    without losing a catch."""
    from scripts.qualify import CHECK_ORDER

    matrix = {check: {"catches": [], "only": []} for check in CHECK_ORDER}
    for entry in corpus["candidates"]:
        for check in entry["failed_checks"]:
            matrix[check]["catches"].append(entry["path"])
        if len(entry["failed_checks"]) == 1:
            matrix[entry["failed_checks"][0]]["only"].append(entry["path"])
    return matrix


# --------------------------------------------------------------------------
# The comparison: eager, torch.compile and the custom kernel
# --------------------------------------------------------------------------


def run_comparison(device: str, shapes=None, rounds=None, repeats=None,
                   warmup_ms: float = 100.0, compiler=None) -> dict:  # fmt: skip
    """Time eager and compiled PyTorch (and, on a GPU, the custom kernel)
    with scripts/timing.py; check every provider's output before and after
    timing. On a CPU the custom kernel is run once per shape in the Triton
    interpreter for its values, and never timed."""
    if device == "cpu":  # before Triton reads it, i.e. before any kernel import
        os.environ["TRITON_INTERPRET"] = "1"
    import torch

    from kernels import residual_add_relu as kernel
    from scripts import timing
    from scripts.qualify import bench_dtype

    shapes = shapes or COMPARISON_SHAPES[device]
    default_rounds, default_repeats = COMPARISON_ROUNDS[device]
    rounds, repeats = rounds or default_rounds, repeats or default_repeats
    compiler = compiler or torch.compile
    dtype = bench_dtype(device)
    rows = []
    for shape in shapes:
        generator = torch.Generator().manual_seed(sum(shape))
        x = torch.randn(shape, generator=generator).to(dtype).to(device)
        residual = torch.randn(shape, generator=generator).to(dtype).to(device)
        expected = torch.relu(x + residual)
        if hasattr(torch, "_dynamo"):
            torch._dynamo.reset()  # one compiled graph per shape, no recompiles
        compiled = compiler(kernel.residual_add_relu_ref, dynamic=False)
        providers = _providers(x, residual, compiled, kernel, device)
        # The true first call (it compiles) is timed here, and its output
        # checked: the timing loop's own "first call" comes after this one.
        first_call_ms, before = {}, {}
        for name, fn in providers.items():
            started = time.perf_counter()
            out = fn()
            if device != "cpu":
                torch.cuda.synchronize()
            first_call_ms[name] = (time.perf_counter() - started) * 1e3
            before[name] = _exact(out, expected)
        timings = timing.time_interleaved(
            providers, device=device, rounds=rounds, repeats_per_round=repeats,
            warmup_ms=warmup_ms,
        )  # fmt: skip
        after = {name: _exact(fn(), expected) for name, fn in providers.items()}
        row = {
            "shape": list(shape), "dtype": str(dtype).removeprefix("torch."),
            "bytes_moved": kernel.bytes_moved(x.numel(), x.element_size()),
            "first_call_ms": first_call_ms,
            "timings": {name: t.to_dict() for name, t in timings.items()},
            "correct_before": before, "correct_after": after,
        }  # fmt: skip
        if device == "cpu":
            row["custom"] = {
                "evidence": "triton-interpreter",
                "timed": False,
                "correct": _exact(kernel.residual_add_relu(x, residual), expected),
            }
        rows.append(row)
        print(
            f"{shape}: "
            + ", ".join(f"{n} {t.median_ms:.4g} ms" for n, t in timings.items()),
            flush=True,
        )
    import triton

    return {
        "schema": SCHEMA_VERSION,
        "device": device,
        "device_name": _device_name(device),
        "timer": timing.TIMER_CUDA if device != "cpu" else timing.TIMER_HOST,
        "created_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "identity": {
            "commit": _git("rev-parse", "--short", "HEAD"),
            "dirty": bool(_git("status", "--porcelain", "--", *IDENTITY_FILES)),
            "kernel_sha256": sha256_of(ROOT / KERNEL_FILE),
            "runner_sha256": sha256_of(Path(__file__)),
            "timing_sha256": sha256_of(ROOT / "scripts" / "timing.py"),
        },
        "software": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "triton": triton.__version__,
        },  # fmt: skip
        "method": {
            "rounds": rounds,
            "repeats_per_round": repeats,
            "warmup_ms": warmup_ms,
            "compile": "torch.compile(dynamic=False), reset between shapes",
        },  # fmt: skip
        "rows": rows,
    }


def _providers(x, residual, compiled, kernel, device) -> dict:
    """Zero-argument callables for the timing loop, bound to one shape."""
    providers = {
        "eager": lambda: kernel.residual_add_relu_ref(x, residual),
        "compile": lambda: compiled(x, residual),
    }
    if device != "cpu":
        providers["custom"] = lambda: kernel.residual_add_relu(x, residual)
    return providers


def _exact(out, expected) -> bool:
    """Exact agreement, NaN positions included (relu(x + r) rounds once)."""
    import torch

    return bool(torch.equal(out.isnan(), expected.isnan())) and bool(
        (out[~out.isnan()] == expected[~expected.isnan()]).all()
    )


def _device_name(device: str) -> str:
    if device != "cpu":
        import torch

        return torch.cuda.get_device_name(device)
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=10)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


def refresh_verdicts(device: str = "cpu") -> None:
    from scripts import qualify

    for name, (path, collect_all) in COMMITTED_VERDICTS.items():
        verdict = qualify.qualify(ROOT / path, device, collect_all=collect_all)
        write_json(verdict, result_path(name, device))
        print(f"{verdict['status']:9} {path} -> {result_path(name, device)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="qualify_report.py")
    parser.add_argument("what", choices=("verdicts", "corpus", "compare"))
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    args = parser.parse_args(argv)
    if args.what == "compare":
        data = run_comparison(args.device)
        write_json(data, result_path("comparison", args.device))
    elif args.what == "corpus":
        write_json(run_corpus(), result_path("corpus", "cpu"))
    else:
        refresh_verdicts(args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())


# --------------------------------------------------------------------------
# Page text, built from committed files only (called by the build hook)
# --------------------------------------------------------------------------


def committed(name: str, device: str = "cpu") -> dict:
    data = load_json(result_path(name, device))
    if data is None:
        raise FileNotFoundError(
            f"{result_path(name, device).relative_to(ROOT)} is missing: run "
            "python scripts/qualify_report.py "
            + ("compare" if name == "comparison" else "verdicts")
        )
    return data


def printed_failure(name: str) -> str:
    """What the evaluator printed for a rejected candidate, as a fenced text
    block: the cases that passed (counted), the failing case in full, the
    verdict line."""
    from scripts.qualify import case_line, verdict_line

    verdict = committed(name)
    lines = []
    passed = [c for c in verdict["cases"] if c["result"] == "pass"]
    if passed:
        lines.append(f"  ({len(passed)} cases passed: {passed[0]['name']} … "
                     f"{passed[-1]['name']})")  # fmt: skip
    for entry in verdict["cases"]:
        if entry["result"] == "fail":
            lines.append(case_line(entry))
    not_run = sum(c["result"] == "not run" for c in verdict["cases"])
    if not_run:
        lines.append(f"  ({not_run} cases not run: the evaluator stops at the "
                     "first failing case unless given --all)")  # fmt: skip
    lines += ["", verdict_line(verdict)]
    return "```text\n" + "\n".join(lines) + "\n```\n"


def verdict_summary(name: str) -> str:
    """One sentence: what was run, on what, and the outcome."""
    v = committed(name)
    soft = v["software"]
    where = "a GPU"
    if v["device"] == "cpu":
        where = (
            f"the Triton interpreter (Triton {soft['triton']}, torch {soft['torch']})"
        )
    if v["status"] == "qualified":
        c = v["counts"]
        return (f"**qualified**: {c['kernel_cases']} kernel cases and "
                f"{c['unsupported_cases']} unsupported-input cases, {c['calls']} "
                f"calls and {c['checks']} checks, all passed, in "
                f"{v['elapsed_s']:g} s of wall time on {where}")  # fmt: skip
    first = v["first_failure"]
    return (f"**{v['status']}**: check `{first['check']}` failed first, on case "
            f"`{first['case']}`, on {where}")  # fmt: skip


def failed_checks_text(name: str) -> str:
    checks = committed(name)["failed_checks"]
    return ", ".join(f"`{c}`" for c in checks)


def failure_table(name: str) -> str:
    """Every failing (case, check) of a verdict run with --all, first call
    only, as Markdown."""
    rows = ["| case | check | the evaluator's words (first failing call) |",
            "| --- | --- | --- |"]  # fmt: skip
    for entry in committed(name)["cases"]:
        seen = set()
        for failure in entry["failures"]:
            if failure["check"] in seen:
                continue
            seen.add(failure["check"])
            detail = failure["detail"].replace("|", "\\|")
            rows.append(f"| `{entry['name']}` | `{failure['check']}` | {detail} |")
    return "\n".join(rows) + "\n"


def sha_text(name: str) -> str:
    return f"`{committed(name)['sha256']}`"


def _corpus() -> dict:
    return committed("corpus")


def corpus_count(status: str) -> int:
    """How many corpus candidates must end with `status`."""
    return sum(e["expected_status"] == status for e in _corpus()["candidates"])


def corpus_table() -> str:
    rows = ["| candidate | must be | why | first failing check, case |",
            "| --- | --- | --- | --- |"]  # fmt: skip
    for e in _corpus()["candidates"]:
        first = e["first_failure"]
        got = f"`{first['check']}`, `{first['case']}`" if first else "qualified"
        must = e["expected_status"]
        if e["expected_check"]:
            must += f" by `{e['expected_check']}`"
        name = Path(e["path"]).name
        rows.append(f"| `{name}` | {must} | {e['expected_reason']} | {got} |")
    return "\n".join(rows) + "\n"


def kill_matrix_table() -> str:
    rows = ["| check | candidates it rejects | rejected by this check alone |",
            "| --- | --- | --- |"]  # fmt: skip
    for check, row in kill_matrix(_corpus()).items():
        only = ", ".join(f"`{Path(p).stem}`" for p in row["only"]) or "**none**"
        rows.append(f"| `{check}` | {len(row['catches'])} | {only} |")
    return "\n".join(rows) + "\n"


def corpus_bound_text() -> str:
    return f"{CORPUS_MAX_NUMEL:,}"


# --------------------------------------------------------------------------
# The decision memo
# --------------------------------------------------------------------------


def format_ms(ms: float) -> str:
    if ms < 1.0:
        return f"{ms * 1e3:.3g} µs"
    return f"{ms:.3g} ms"


def _shape(row: dict) -> str:
    return "×".join(str(d) for d in row["shape"])


def _faster(row: dict) -> tuple[str, float]:
    """(provider with the lower median, how many times lower)."""
    eager = row["timings"]["eager"]["median_ms"]
    compiled = row["timings"]["compile"]["median_ms"]
    if compiled < eager:
        return "compile", eager / compiled
    return "eager", compiled / eager


def _device_comparison() -> dict | None:
    return load_json(result_path("comparison", "cuda"))


def _speed_ceiling(provider: str) -> float:
    from scripts.bench import REGISTRY

    return REGISTRY["residual_add_relu"].max_speedup[provider]


def _goal() -> str:
    from scripts.bench_embed import GOALS

    return dict((name, must) for name, must, _ in GOALS)["residual add + ReLU"]


def memo_recommendation() -> str:
    cpu = committed("comparison")
    verdict = committed("residual_add_relu")
    gpu = _device_comparison()
    if gpu is not None:
        return _gpu_recommendation(gpu)
    wins = [_shape(r) for r in cpu["rows"] if _faster(r)[0] == "compile"]
    losses = [_shape(r) for r in cpu["rows"] if _faster(r)[0] == "eager"]
    qualified = "qualified" if verdict["status"] == "qualified" else "REJECTED"
    text = (
        "**Keep the compiled baseline (`torch.compile`). Do not switch to the "
        "custom kernel yet.**\n\n"
        f"- Correctness: the custom kernel is **{qualified}** under the Triton "
        "interpreter. That is necessary, not sufficient: nothing has measured "
        "it on a GPU, and the evaluator has not run there either.\n"
        "- Speed on a GPU: not measured. On a GPU, `torch.compile` fuses the "
        "add and the ReLU into one pass as well, so both read and write the "
        "same bytes; the byte counts cap the custom kernel's gain at "
        f"{_speed_ceiling('compile'):g}× over the compiled baseline (and "
        f"{_speed_ceiling('eager'):.3g}× over eager). The best the custom "
        "kernel can do is match it, at the price of code the team maintains.\n"
        f"- On this CPU (host timings of CPU code, no evidence about a GPU) the "
        f"compiled baseline is faster than eager at {len(wins)} of "
        f"{len(cpu['rows'])} shapes"
    )
    if wins:
        text += f" ({', '.join(wins)})"
    if losses:
        text += f"; eager is faster at {', '.join(losses)}, where the call is so "
        text += "short that the compiled wrapper's own overhead dominates"
    return text + ".\n"


def _gpu_recommendation(gpu: dict) -> str:
    ratios = []
    for row in gpu["rows"]:
        t = row["timings"]
        best = min(t["eager"]["median_ms"], t["compile"]["median_ms"])
        ratios.append((_shape(row), best / t["custom"]["median_ms"]))
    lines = [f"- {shape}: R = min(eager, compile) / custom = {r:.3f}"
             for shape, r in ratios]  # fmt: skip
    if all(r >= 1.0 for _, r in ratios):
        head = "**Use the custom kernel: it is at least as fast as both baselines"
        head += " at every shape measured.**"
    else:
        head = "**Keep the compiled baseline: it wins at "
        head += f"{sum(r < 1.0 for _, r in ratios)} of {len(ratios)} shapes.**"
    return head + "\n\n" + "\n".join(lines) + "\n"


def memo_identity() -> str:
    verdict = committed("residual_add_relu")
    cpu = committed("comparison")
    current = sha256_of(ROOT / KERNEL_FILE)

    def match(sha: str) -> str:
        return (
            "matches the file today"
            if sha == current
            else ("**differs from the file today: stale**")
        )

    soft = verdict["software"]
    rows = [
        "| what | identity |",
        "| --- | --- |",
        f"| kernel source | `{KERNEL_FILE}` |",
        f"| source sha256 qualified | `{verdict['sha256']}` "
        f"({match(verdict['sha256'])}) |",
        f"| qualified with | Python {soft['python']}, torch {soft['torch']}, "
        f"Triton {soft['triton']}, {verdict['backend']} |",
        f"| compared with | commit `{cpu['identity']['commit']}`"
        f"{' (uncommitted changes)' if cpu['identity']['dirty'] else ''}, kernel "
        f"sha256 `{cpu['identity']['kernel_sha256'][:16]}…` "
        f"({match(cpu['identity']['kernel_sha256'])}), {cpu['device_name']} |",
    ]  # fmt: skip
    artifact = load_json(ARTIFACT_FILE)
    if artifact is None:
        rows.append("| compiled artifact | not built yet |")
    else:
        rows.append(
            f"| compiled artifact | `results/artifacts/{ARTIFACT_FILE.name}`: "
            f"{artifact['target']}, Triton {artifact['triton_version']}, built "
            f"from sha256 `{artifact['source_sha256'][:16]}…` "
            f"({match(artifact['source_sha256'])}) |"
        )
        for build in artifact["builds"]:
            rows.append(f"| cubin `{build['build']}` | `{build['cubin_sha256']}` |")
    return "\n".join(rows) + "\n"


def memo_correctness() -> str:
    verdict = committed("residual_add_relu")
    corpus = _corpus()["candidates"]
    c = verdict["counts"]
    broken = sum(e["expected_status"] == "rejected" for e in corpus)
    good = sum(e["expected_status"] == "qualified" for e in corpus)
    launch_only = [e["name"] for e in verdict["cases"] if e["mode"] == "launch only"]
    named = ", ".join(f"`{n}`" for n in launch_only)
    return (
        f"- The evaluator ran {c['kernel_cases']} kernel cases and "
        f"{c['unsupported_cases']} unsupported-input cases ({c['calls']} calls, "
        f"{c['checks']} checks) on the kernel under the Triton interpreter: "
        f"**{verdict['status']}**.\n"
        f"- {len(launch_only)} cases were too large to interpret and had their "
        f"launch checked, not their values: {named}.\n"
        f"- The evaluator itself rejects all {broken} known-broken candidates of "
        f"its corpus, each by the check expected, and qualifies all {good} "
        "known-good ones.\n"
        "- Not established: races and anything else that needs programs to run "
        "at the same time (the interpreter runs them one by one), memory errors "
        "a GPU would fault on (Compute Sanitizer has not run), and values on a "
        "GPU (the qualification has not run with `--device cuda`).\n"
    )  # fmt: skip


def _comparison() -> dict:
    """The device comparison when one is committed, else the CPU one."""
    return _device_comparison() or committed("comparison")


def memo_timing_boundary() -> str:
    data = _comparison()
    t = data["rows"][0]["timings"]["eager"]
    m = data["method"]
    if data["device"] == "cpu":
        timer = (
            f"- Timer: `{data['timer']}`. On the CPU each sample is the host time "
            "of one call: Python dispatch, the output's allocation and the CPU "
            f"kernel. No cache flush ({t['flush_bytes']} bytes): the inputs may "
            "sit in the CPU's caches.\n"
        )
        custom = (
            "- The custom kernel ran once per shape in the interpreter, for its "
            "values only. It has no time: the interpreter's speed says nothing "
            "about a GPU's.\n"
        )
    else:
        timer = (
            f"- Timer: `{data['timer']}`: device time between two CUDA events "
            "around each call, after a write of "
            f"{t['flush_bytes']:,} bytes that evicts L2; host launch overhead "
            "outside the events is not included.\n"
        )
        custom = "- The custom kernel is timed like the baselines, interleaved.\n"
    return (
        timer + "- First call apart: the first call of each provider (for "
        "`torch.compile`, tracing and compiling, unless its cache already held "
        "the result) is timed on its own and reported in its own column.\n"
        f"- Warmed: then each provider ran for at least {m['warmup_ms']:g} ms; "
        f"then {m['rounds']} rounds of {m['repeats_per_round']} calls per "
        "provider, interleaved, the order rotated each round. Medians with the "
        "20th and 80th percentiles; every sample is below.\n"
        f"- {m['compile']}.\n" + custom
    )


def memo_results_caption() -> str:
    data = _comparison()
    if data["device"] == "cpu":
        return (
            "Medians, with the 20th to 80th percentile in brackets. These are "
            f"host times of PyTorch's CPU kernels on {data['device_name']}: they "
            "show how eager and compiled code compare on this CPU, nothing "
            "about a GPU."
        )
    return (
        "Medians, with the 20th to 80th percentile in brackets: device time on "
        f"{data['device_name']}, measured {data['created_utc']}."
    )


def _spread(timing: dict) -> str:
    return (f"{format_ms(timing['median_ms'])} ({format_ms(timing['p20_ms'])}"
            f" – {format_ms(timing['p80_ms'])})")  # fmt: skip


def memo_results() -> str:
    data = _comparison()
    rows = [
        "| shape | bytes moved | eager | torch.compile | first call (eager, compile) "
        "| faster baseline | custom kernel |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in data["rows"]:
        t = row["timings"]
        first = row.get("first_call_ms", {})
        first_text = ", ".join(format_ms(first[n]) for n in ("eager", "compile")
                               if n in first)  # fmt: skip
        winner, ratio = _faster(row)
        ok = all(row["correct_before"].values()) and all(row["correct_after"].values())
        if "custom" in t:
            custom_text = _spread(t["custom"])
        elif row.get("custom", {}).get("correct"):
            custom_text = "correct, not timed (interpreter)"
        else:
            custom_text = "**wrong values**"
        rows.append(
            f"| {_shape(row)} {row['dtype']} | {row['bytes_moved']:,} | "
            f"{_spread(t['eager'])} | {_spread(t['compile'])} | {first_text} | "
            f"{winner} by {ratio:.2f}×"
            f"{'' if ok else ' (**a provider was wrong**)'} | {custom_text} |"
        )
    return "\n".join(rows) + "\n"


def memo_rounds() -> str:
    """Every sample, by shape, provider and round, in microseconds."""
    out = []
    for row in _comparison()["rows"]:
        out.append(f"**{_shape(row)}** (µs; each line is one round, in the order "
                   "taken)\n")  # fmt: skip
        out.append("| provider | round | samples |")
        out.append("| --- | --- | --- |")
        for name, t in row["timings"].items():
            per = t["repeats"]
            for r in range(t["rounds"]):
                chunk = t["samples_ms"][r * per : (r + 1) * per]
                values = " ".join(f"{v * 1e3:.1f}" for v in chunk)
                out.append(f"| {name} | {r + 1} | {values} |")
        out.append("")
    return "\n".join(out)


def memo_reversal() -> str:
    return (
        "- A device comparison on the GPU the service runs on in which the custom "
        "kernel's median is no slower than `torch.compile`'s at every "
        "HBM-bound shape, with `--device cuda` qualification passing. The "
        f"project's own goal for this kernel is {_goal()}.\n"
        "- A deployment where `torch.compile` is not available (a runtime that "
        "cannot compile at start-up, or a graph that breaks around this "
        "operation). Then the custom kernel competes with eager's two kernels, "
        f"where the bytes allow up to {_speed_ceiling('eager'):.3g}×.\n"
        "- A wider fusion: if the operation that produces `x` (or consumes the "
        "result) can be fused into the same kernel, the bytes saved change the "
        "arithmetic above; this memo covers the add and ReLU alone.\n"
    )


def memo_device_status() -> str:
    gpu = _device_comparison()
    if gpu is not None:
        return (
            f"A device comparison exists: {gpu['device_name']}, {gpu['created_utc']}."
        )
    shapes = ", ".join("×".join(map(str, s)) for s in COMPARISON_SHAPES["cuda"])
    return (
        "**The device comparison has not been run.** No GPU was available to "
        "this project when the memo was generated, and no GPU figure appears "
        f"here. It would take, on the GPU: `python scripts/qualify.py "
        f"{KERNEL_FILE} --device cuda --json "
        "results/qualify/residual_add_relu.cuda.json` (every case, values at "
        "full size) and `python scripts/qualify_report.py compare --device "
        f"cuda` (shapes {shapes}, events, an L2 flush before each call), then "
        "committing both files and rebuilding the site; this memo reads them."
    )


def memo_rounds_indented(spaces: int) -> str:
    """memo_rounds() indented to sit inside a collapsible block."""
    pad = " " * spaces
    lines = memo_rounds().split("\n")
    return "\n".join(lines[:1] + [pad + line if line else "" for line in lines[1:]])
