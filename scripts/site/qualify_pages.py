"""The words, tables and numbers the qualification pages show (Triton
qualification project, Kernel correctness contracts, Qualify a generated
kernel, Decision memo).

Everything here is built from committed data files read through
``evidence.read``: the verdicts and the corpus in
``results/qualify/`` (kind "verdict", written by ``python -m
scripts.qualify.refresh``), the comparison of eager, ``torch.compile`` and
the custom kernel in ``results/bench/`` (kind "bench", profile "compare",
written by ``python -m scripts.bench --profile compare residual_add_relu``)
and the compiled artifact. No torch, no Triton, no import of the evaluator:
the evaluator writes into every verdict the contract it checked (its checks,
cases, exit codes and limits), and the pages read it from there.
"""

from __future__ import annotations

from pathlib import Path

import evidence as results
from evidence.benchmarks import RESULTS_DIR, load_results, newest
from evidence.tables import cell, markdown_table
from scripts.site.bench_pages import format_time

ROOT = results.ROOT
QUALIFY_DIR = results.RESULTS_DIR / "qualify"
BENCH_DIR = RESULTS_DIR
ARTIFACT_FILE = results.RESULTS_DIR / "artifacts" / "residual_add_relu.sm_90a.json"
KERNEL = "residual_add_relu"
#: The verdict whose contract the pages quote (the project's own kernel).
CONTRACT_FROM = "residual_add_relu"


def _table(header: list[str], rows: list[list[object]]) -> str:
    """Rows of trusted Markdown (data from outside is passed through cell())."""
    return markdown_table(header, rows, escape=False) + "\n"


# --------------------------------------------------------------------------
# Committed qualification files
# --------------------------------------------------------------------------


def result_path(name: str, device: str = "cpu") -> Path:
    return QUALIFY_DIR / f"{name}.{device}.json"


def committed(name: str, device: str = "cpu") -> dict:
    """One committed verdict (or the corpus), validated."""
    path = result_path(name, device)
    if not path.is_file():
        raise FileNotFoundError(
            f"{results.display_path(path)} is missing: run "
            f"python -m scripts.qualify.refresh "
            + ("corpus" if name == "corpus" else "verdicts")
        )
    return results.read("verdict", path).data


def contract() -> dict:
    """The contract the evaluator checked, as its committed verdict holds it."""
    return committed(CONTRACT_FROM)["contract"]


# --------------------------------------------------------------------------
# The contract: checks, cases, limits
# --------------------------------------------------------------------------


def _cases(kind: str) -> list[dict]:
    return [c for c in contract()["cases"] if c["kind"] == kind]


def kernel_case_count() -> int:
    return len(_cases("kernel"))


def unsupported_case_count() -> int:
    return len(_cases("unsupported"))


def exit_codes_text() -> str:
    codes = contract()["exit_codes"]
    names = {"inconclusive": "inconclusive here"}
    return ", ".join(
        f"{code} {names.get(status, status.replace('-', ' '))}"
        for status, code in sorted(codes.items(), key=lambda item: item[1])
    )


def isolation_text(name: str = CONTRACT_FROM) -> str:
    """How the committed verdict's candidate was isolated, as it states."""
    isolation = committed(name)["isolation"]
    details = "; ".join(cell(d) for d in isolation["details"])
    return f"{isolation['method']} ({details})"


def limits_text() -> str:
    """The default per-case timeout, overall deadline and memory cap."""
    d = contract()["defaults"]
    memory = d["memory_bytes"]["cpu"]
    return (
        f"{d['case_timeout_s']['cpu']:g} s per case, {d['deadline_s']['cpu']:g} s "
        f"for the whole run and {memory >> 30} GiB of address space on the CPU "
        f"({d['case_timeout_s']['cuda']:g} s, {d['deadline_s']['cuda']:g} s and "
        "no address-space cap on a GPU, where CUDA reserves far more than it uses)"
    )


def black_box_limits_list() -> str:
    """What no black-box run can establish, as a Markdown list."""
    return "\n".join(f"- {cell(item)}" for item in contract()["black_box_limits"])


def review_constructs_text() -> str:
    names = contract()["review_constructs"]
    shown = [f"`{cell(n)}`" for n in names]
    return ", ".join(shown[:-1]) + f" and {shown[-1]}"


def divergence_text() -> str:
    """The known interpreter divergences an inconclusive verdict can name."""
    items = contract()["divergences"]
    return "; ".join(
        f"`{name}` (Triton {d['triton']}): {cell(d['detail'])}"
        for name, d in items.items()
    )


def check_count() -> int:
    return len(contract()["checks"])


def check_table() -> str:
    rows = [[f"`{c['name']}`", c["passes_when"]] for c in contract()["checks"]]
    return _table(["check", "passes when"], rows)


def case_table(kind: str = "kernel") -> str:
    """The case list as Markdown, numbered in the order the evaluator runs."""
    rows = [
        [
            c["number"],
            f"`{c['name']}`",
            c["inputs"],
            c["catches"],
            c["mode"]["cpu"],
            c["mode"]["cuda"],
        ]
        for c in _cases(kind)
    ]
    header = ["#", "case", "inputs", "exposes", "CPU (interpreter)", "GPU"]
    return _table(header, rows)


def launch_only_cases_text() -> str:
    names = [
        f"`{c['name']}`" for c in _cases("kernel") if c["mode"]["cpu"] == "launch only"
    ]
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def interpreter_max_numel_text() -> str:
    return f"{contract()['interpreter_max_numel']:,}"


def grid_limits_text() -> str:
    x, y, z = contract()["grid_limits"]
    return f"{x:,} programs on axis 0 and {y:,} on axes 1 and 2"


def axis_limit_text() -> str:
    """The grid limit of CUDA's axes 1 and 2, the cap a kernel most often
    borrows for axis 0 too."""
    return f"{contract()['grid_limits'][1]:,}"


def bench_shapes_text() -> str:
    data = contract()
    text = ", ".join(f"{r}×{c}" for r, c in data["bench_shapes"])
    return f"{text} (from {data['bench_shapes_source']})"


# --------------------------------------------------------------------------
# One verdict
# --------------------------------------------------------------------------


def _fence(lines: list[str]) -> str:
    """A text block; the fence is longer than any backtick run inside (the
    lines quote a candidate's own messages)."""
    body = "\n".join(lines)
    fence = "```"
    while fence in body:
        fence += "`"
    return f"{fence}text\n{body}\n{fence}\n"


def printed_failure(name: str) -> str:
    """What the evaluator printed for a rejected candidate, as a fenced text
    block: the cases that passed (counted), the failing case in full, the
    verdict line."""
    verdict = committed(name)
    lines = []
    passed = [c for c in verdict["cases"] if c["result"] == "pass"]
    if passed:
        lines.append(
            f"  ({len(passed)} cases passed: {passed[0]['name']} … "
            f"{passed[-1]['name']})"
        )
    for entry in verdict["cases"]:
        if entry["result"] == "fail":
            lines.append(entry["printed"])
    not_run = sum(c["result"] == "not run" for c in verdict["cases"])
    if not_run:
        lines.append(
            f"  ({not_run} cases not run: the evaluator stops at the "
            "first failing case unless given --all)"
        )
    lines += ["", verdict["printed"]["verdict"]]
    return _fence(lines)


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
        return (
            f"**qualified**: {c['kernel_cases']} kernel cases and "
            f"{c['unsupported_cases']} unsupported-input cases, {c['calls']} "
            f"calls and {c['checks']} checks, all passed, in "
            f"{v['elapsed_s']:g} s of wall time on {where}"
        )
    if v["status"] == "harness-error":
        return f"**harness error**: {cell(v['harness_error'])}"
    first = v["first_failure"]
    return (
        f"**{v['status']}**: check `{first['check']}` failed first, on case "
        f"`{first['case']}`, on {where}"
    )


def sha_text(name: str) -> str:
    return f"`{committed(name)['sha256']}`"


def failed_checks_text(name: str) -> str:
    checks = committed(name)["failed_checks"]
    return ", ".join(f"`{c}`" for c in checks)


def failure_table(name: str) -> str:
    """Every failing (case, check) of a verdict run with --all, first call
    only, as Markdown."""
    rows = []
    for entry in committed(name)["cases"]:
        seen = set()
        for failure in entry["failures"]:
            if failure["check"] in seen:
                continue
            seen.add(failure["check"])
            detail = cell(failure["detail"])  # a candidate's own words
            rows.append([f"`{entry['name']}`", f"`{failure['check']}`", detail])
    header = ["case", "check", "the evaluator's words (first failing call)"]
    return _table(header, rows)


# --------------------------------------------------------------------------
# The corpus and the kill matrix
# --------------------------------------------------------------------------


def _corpus() -> dict:
    return committed("corpus")


def corpus_count(status: str) -> int:
    """How many corpus candidates must end with `status`."""
    return sum(e["expected_status"] == status for e in _corpus()["candidates"])


def corpus_table() -> str:
    rows = []
    for e in _corpus()["candidates"]:
        first = e["first_failure"]
        got = f"`{first['check']}`, `{first['case']}`" if first else "qualified"
        if e["status"] == "inconclusive":
            got = f"inconclusive here ({got})"
        must = e["expected_status"]
        if e["expected_check"]:
            must += f" by `{e['expected_check']}`"
        name = Path(e["path"]).name
        rows.append([f"`{name}`", must, cell(e["expected_reason"]), got])
    return _table(["candidate", "must be", "why", "first failing check, case"], rows)


def kill_matrix_table() -> str:
    rows = []
    for check, row in _corpus()["kill_matrix"].items():
        only = ", ".join(f"`{Path(p).stem}`" for p in row["only"]) or "**none**"
        rows.append([f"`{check}`", len(row["catches"]), only])
    header = ["check", "candidates it rejects", "rejected by this check alone"]
    return _table(header, rows)


def corpus_bound_text() -> str:
    return f"{_corpus()['interpreter_max_numel']:,}"


# --------------------------------------------------------------------------
# The comparison: a benchmark result of profile "compare"
# --------------------------------------------------------------------------


def _newest(kind: str) -> dict | None:
    """The newest comparison measured on "cuda" or "cpu" (the same pick the
    Benchmarks page makes, through evidence.benchmarks)."""
    found = newest(
        load_results(BENCH_DIR), KERNEL, profile="compare", on_gpu=kind == "cuda"
    )
    return found.data if found is not None else None


def _device_kind(data: dict) -> str:
    return data["identity"]["device_kind"]


def _device_comparison() -> dict | None:
    return _newest("cuda")


def _comparison() -> dict | None:
    """The newest device comparison when one is committed, else the newest
    CPU one (None: nothing measured yet)."""
    return _device_comparison() or _newest("cpu")


NOT_MEASURED = (
    "Not measured yet: no comparison is committed (run `python -m scripts.bench "
    "--profile compare residual_add_relu`)."
)


def _by_shape(data: dict) -> list[dict]:
    """The comparison's rows grouped by shape, in the order measured:
    ``{"shape", "dtype", "bytes_moved", "providers": {name: row}}``."""
    groups: dict[str, dict] = {}
    for row in data["rows"]:
        if row["kernel"] != KERNEL:
            continue
        key = _shape(row)
        group = groups.setdefault(
            key,
            {
                "shape": key,
                "dtype": row["dtype"],
                "bytes_moved": row["bytes_moved"],
                "providers": {},
            },
        )
        group["providers"][row["provider"]] = row
    return list(groups.values())


def _shape(row: dict) -> str:
    if row.get("shape_text"):
        return row["shape_text"]
    shape = row["shape"]
    dims = shape.values() if isinstance(shape, dict) else shape
    return "×".join(str(d) for d in dims)


def format_ms(ms: float) -> str:
    """A duration in the unit that keeps it to three digits: µs, ms or s."""
    return format_time(ms)


def _timed(row: dict | None) -> bool:
    return bool(row) and row.get("timed") and row.get("median_ms") is not None


def _faster(group: dict) -> tuple[str, float]:
    """(baseline with the lower median, how many times lower)."""
    eager = group["providers"]["eager"]["median_ms"]
    compiled = group["providers"]["compile"]["median_ms"]
    if compiled < eager:
        return "compile", eager / compiled
    return "eager", compiled / eager


def _speed_ceiling(provider: str) -> float:
    return contract()["max_speedup"][provider]


def _target_text(target: dict) -> str:
    if target["metric"] == "speedup_vs_eager":
        return f"≥ {target['at_least']:g}× eager"
    return f"{target['metric']} ≥ {target['at_least']:.2f}"


def _goal() -> str:
    goals = contract()["goals"]
    return ", ".join(_target_text(t) for goal in goals for t in goal["must"])


def memo_recommendation() -> str:
    verdict = committed("residual_add_relu")
    gpu = _device_comparison()
    if gpu is not None:
        return _gpu_recommendation(gpu)
    cpu = _comparison()
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
    )
    if cpu is None:
        return text + f"- On this CPU: {NOT_MEASURED}\n"
    groups = _by_shape(cpu)
    wins = [g["shape"] for g in groups if _faster(g)[0] == "compile"]
    losses = [g["shape"] for g in groups if _faster(g)[0] == "eager"]
    text += (
        f"- On this CPU (host timings of CPU code, no evidence about a GPU) the "
        f"compiled baseline is faster than eager at {len(wins)} of "
        f"{len(groups)} shapes"
    )
    if wins:
        text += f" ({', '.join(wins)})"
    if losses:
        text += f"; eager is faster at {', '.join(losses)}, where the call is so "
        text += "short that the compiled wrapper's own overhead dominates"
    return text + ".\n"


def _gpu_recommendation(gpu: dict) -> str:
    ratios = []
    for group in _by_shape(gpu):
        p = group["providers"]
        best = min(p["eager"]["median_ms"], p["compile"]["median_ms"])
        ratios.append((group["shape"], best / p["triton"]["median_ms"]))
    lines = [
        f"- {shape}: R = min(eager, compile) / custom = {r:.3f}" for shape, r in ratios
    ]
    if all(r >= 1.0 for _, r in ratios):
        head = "**Use the custom kernel: it is at least as fast as both baselines"
        head += " at every shape measured.**"
    else:
        head = "**Keep the compiled baseline: it wins at "
        head += f"{sum(r < 1.0 for _, r in ratios)} of {len(ratios)} shapes.**"
    return head + "\n\n" + "\n".join(lines) + "\n"


def memo_identity() -> str:
    verdict = committed("residual_add_relu")
    kernel_file = verdict["contract"]["kernel_file"]
    current = results.sha256_file(ROOT / kernel_file)

    def match(sha: str) -> str:
        if sha == current:
            return "matches the file today"
        return "**differs from the file today: stale**"

    soft = verdict["software"]
    rows = [
        ["kernel source", f"`{kernel_file}`"],
        [
            "source sha256 qualified",
            f"`{verdict['sha256']}` ({match(verdict['sha256'])})",
        ],
        [
            "qualified with",
            f"Python {soft['python']}, torch {soft['torch']}, "
            f"Triton {soft['triton']}, {verdict['backend']}",
        ],
    ]
    data = _comparison()
    if data is None:
        rows.append(["compared with", "not measured yet"])
    else:
        identity = data["identity"]
        sha = data["kernels"][KERNEL]["sources"].get(kernel_file, "")
        dirty = " (uncommitted changes)" if identity.get("dirty") else ""
        rows.append(
            [
                "compared with",
                f"commit `{str(identity['commit'])[:7]}`{dirty}, kernel sha256 "
                f"`{sha[:16]}…` ({match(sha)}), {cell(data['device']['name'])}",
            ]
        )
    if not ARTIFACT_FILE.is_file():
        rows.append(["compiled artifact", "not built yet"])
    else:
        artifact = results.read("artifact", ARTIFACT_FILE).data
        rows.append(
            [
                "compiled artifact",
                f"`results/artifacts/{ARTIFACT_FILE.name}`: {artifact['target']}, "
                f"Triton {artifact['triton_version']}, built from sha256 "
                f"`{artifact['source_sha256'][:16]}…` "
                f"({match(artifact['source_sha256'])})",
            ]
        )
        for build in artifact["builds"]:
            rows.append([f"cubin `{build['build']}`", f"`{build['cubin_sha256']}`"])
    return _table(["what", "identity"], rows)


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
    )


def memo_timing_boundary() -> str:
    data = _comparison()
    if data is None:
        return f"- {NOT_MEASURED}\n"
    settings = data["settings"]
    flush = settings.get("flush_bytes", 0)
    if _device_kind(data) == "cpu":
        timer = (
            f"- Timer: `{settings['timer']}`. On the CPU each sample is the host "
            "time of one call: Python dispatch, the output's allocation and the "
            f"CPU kernel. No cache flush ({flush} bytes): the inputs may sit in "
            "the CPU's caches.\n"
        )
        custom = (
            "- The custom kernel ran once per shape in the interpreter, for its "
            "values only. It has no time: the interpreter's speed says nothing "
            "about a GPU's.\n"
        )
    else:
        timer = (
            f"- Timer: `{settings['timer']}`: device time between two CUDA events "
            f"around each call, after a write of {flush:,} bytes that evicts L2; "
            "host launch overhead outside the events is not included.\n"
        )
        custom = "- The custom kernel is timed like the baselines, interleaved.\n"
    text = (
        timer + "- First call apart: the first call of each provider (for "
        "`torch.compile`, tracing and compiling, unless its cache already held "
        "the result) is timed on its own and reported in its own column.\n"
        f"- Warmed: then each provider ran for at least "
        f"{settings['warmup_ms']:g} ms; then {settings['rounds']} rounds of "
        f"{settings['repeats_per_round']} calls per provider, interleaved, the "
        "order rotated each round. Medians with the 20th and 80th percentiles; "
        "every sample is below.\n"
    )
    if settings.get("compile"):
        text += f"- {settings['compile']}.\n"
    return text + custom


def memo_results_caption() -> str:
    data = _comparison()
    if data is None:
        return NOT_MEASURED
    name = cell(data["device"]["name"])
    if _device_kind(data) == "cpu":
        return (
            "Medians, with the 20th to 80th percentile in brackets. These are "
            f"host times of PyTorch's CPU kernels on {name}: they show how eager "
            "and compiled code compare on this CPU, nothing about a GPU."
        )
    return (
        "Medians, with the 20th to 80th percentile in brackets: device time on "
        f"{name}, measured {data['identity']['started_utc']}."
    )


def _spread(row: dict) -> str:
    return (
        f"{format_ms(row['median_ms'])} ({format_ms(row['p20_ms'])}"
        f" – {format_ms(row['p80_ms'])})"
    )


def _correct(row: dict) -> bool:
    return bool(row.get("correct")) and row.get("correct_after_timing") is not False


def memo_results() -> str:
    data = _comparison()
    if data is None:
        return NOT_MEASURED + "\n"
    rows = []
    for group in _by_shape(data):
        p = group["providers"]
        first = ", ".join(
            format_ms(p[n]["first_call_ms"])
            for n in ("eager", "compile")
            if p.get(n, {}).get("first_call_ms") is not None
        )
        winner, ratio = _faster(group)
        ok = _correct(p["eager"]) and _correct(p["compile"])
        custom = p.get("triton")
        if _timed(custom):
            custom_text = _spread(custom)
        elif custom and custom.get("correct"):
            custom_text = "correct, not timed (interpreter)"
        else:
            custom_text = "**wrong values**"
        rows.append(
            [
                f"{group['shape']} {group['dtype']}",
                f"{group['bytes_moved']:,}",
                _spread(p["eager"]),
                _spread(p["compile"]),
                first,
                f"{winner} by {ratio:.2f}×"
                + ("" if ok else " (**a provider was wrong**)"),
                custom_text,
            ]
        )
    header = [
        "shape",
        "bytes moved",
        "eager",
        "torch.compile",
        "first call (eager, compile)",
        "faster baseline",
        "custom kernel",
    ]
    return _table(header, rows)


def memo_rounds() -> str:
    """Every sample, by shape, provider and round, in microseconds."""
    data = _comparison()
    if data is None:
        return NOT_MEASURED + "\n"
    out = []
    for group in _by_shape(data):
        out.append(
            f"**{group['shape']}** (µs; each line is one round, in the order taken)\n"
        )
        rows = []
        for name, row in group["providers"].items():
            if not _timed(row):
                continue
            per = row["repeats"]
            for r in range(row["rounds"]):
                chunk = row["samples_ms"][r * per : (r + 1) * per]
                values = " ".join(f"{v * 1e3:.1f}" for v in chunk)
                rows.append((name, r + 1, values))
        # Escaped: provider names come from the result file.
        out.append(markdown_table(["provider", "round", "samples"], rows))
        out.append("")
    return "\n".join(out)


def memo_rounds_indented(spaces: int) -> str:
    """memo_rounds() indented to sit inside a collapsible block."""
    pad = " " * spaces
    lines = memo_rounds().split("\n")
    return "\n".join(lines[:1] + [pad + line if line else "" for line in lines[1:]])


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
            f"A device comparison exists: {cell(gpu['device']['name'])}, "
            f"{gpu['identity']['started_utc']}."
        )
    kernel_file = contract()["kernel_file"]
    shapes = ", ".join(contract()["compare_shapes"]["cuda"])
    return (
        "**The device comparison has not been run.** No GPU was available to "
        "this project when the memo was generated, and no GPU figure appears "
        f"here. It would take, on the GPU: `python -m scripts.qualify "
        f"{kernel_file} --device cuda --json "
        "results/qualify/residual_add_relu.cuda.json` (every case, values at "
        "full size) and `python -m scripts.bench --profile compare "
        f"residual_add_relu` (shapes {shapes}, events, an L2 flush before each "
        "call), then "
        "committing both files and rebuilding the site; this memo reads them."
    )
