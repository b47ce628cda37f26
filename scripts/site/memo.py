"""The decision memo's computed parts (``docs/reference/decision-memo.md``).

The memo's fixed wording lives in the page; this module gives it what
depends on committed files: ``facts()`` for single values in its sentences,
and the tables and lists it inserts. It reads the qualification verdict
(``results/qualify/residual_add_relu.cpu.json``, through
``scripts/site/qualify_pages.py``), the newest comparison of eager,
``torch.compile`` and the custom kernel (``results/bench/``, profile
"compare") and the compiled artifact. Goals are formatted and R is computed
by the Benchmarks page's own helpers (``scripts/site/bench_pages.py``), so
the two pages cannot disagree.
"""

from __future__ import annotations

import evidence
from evidence.benchmarks import RESULTS_DIR, load_results, newest
from evidence.tables import markdown_table
from evidence.text import inert, plain_word
from scripts.site.bench_format import format_time
from scripts.site.bench_goals import target_label
from scripts.site.bench_pages import ratio_r
from scripts.site.qualify_pages import (
    KERNEL,
    ROOT,
    committed,
    contract,
)

BENCH_DIR = RESULTS_DIR
ARTIFACT_FILE = evidence.RESULTS_DIR / "artifacts" / "residual_add_relu.sm_90a.json"
#: The baselines R is taken against: the faster of the two.
R_BASELINES = ["eager", "compile"]

NOT_MEASURED = (
    "Not measured yet: no comparison is committed (run `python -m scripts.bench "
    "--profile compare residual_add_relu`)."
)


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


def _code(value: object) -> str:
    """A file's string as inline code, inert: a backtick in it cannot end a
    Markdown code span, because the span is HTML and the text references."""
    return f"<code>{inert(value)}</code>"


def device_kind(data: dict) -> str:
    return data["identity"]["device_kind"]


def device_comparison() -> dict | None:
    return _newest("cuda")


def comparison() -> dict | None:
    """The newest device comparison when one is committed, else the newest
    CPU one (None: nothing measured yet)."""
    return device_comparison() or _newest("cpu")


def by_shape(data: dict) -> list[dict]:
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
                "dtype": inert(row["dtype"]),
                "bytes_moved": row["bytes_moved"],
                "providers": {},
            },
        )
        group["providers"][row["provider"]] = row
    return list(groups.values())


def _shape(row: dict) -> str:
    """The row's shape as a page shows it: a file's text, made inert."""
    if row.get("shape_text"):
        return inert(row["shape_text"])
    shape = row["shape"]
    dims = shape.values() if isinstance(shape, dict) else shape
    return inert("×".join(str(d) for d in dims))


def _timed(row: dict | None) -> bool:
    return bool(row) and row.get("timed") and row.get("median_ms") is not None


def _faster(group: dict) -> tuple[str, float]:
    """(baseline with the lower median, how many times lower)."""
    eager = group["providers"]["eager"]["median_ms"]
    compiled = group["providers"]["compile"]["median_ms"]
    if compiled < eager:
        return "compile", eager / compiled
    return "eager", compiled / eager


def speed_ceiling(provider: str) -> float:
    return contract()["max_speedup"][provider]


def goal() -> str:
    """The kernel's must-reach goals, as the Benchmarks page words them."""
    goals = contract()["goals"]
    return ", ".join(inert(target_label(t)) for g in goals for t in g["must"])


# --------------------------------------------------------------------------
# Values in the memo's sentences
# --------------------------------------------------------------------------


def facts() -> dict[str, str]:
    """Single values the memo's fixed wording states, by key."""
    verdict = committed(KERNEL)
    gpu = device_comparison()
    return {
        "verdict": "qualified" if verdict["status"] == "qualified" else "REJECTED",
        "device_evidence": (
            "nothing has measured it on a GPU, and the evaluator has not run "
            "there either"
            if gpu is None
            else f"a device comparison exists ({inert(gpu['device']['name'])})"
        ),
        "gpu_speed": "not measured" if gpu is None else "measured: see R above",
        "compile_ceiling": f"{speed_ceiling('compile'):g}",
        "eager_ceiling": f"{speed_ceiling('eager'):.3g}",
        "goal": goal(),
        # Both sit in a command line the page shows as code, where character
        # references would show as themselves: refused unless plain.
        "kernel_file": plain_word(contract()["kernel_file"]),
        "cuda_shapes": ", ".join(
            plain_word(s) for s in contract()["compare_shapes"]["cuda"]
        ),
    }


# --------------------------------------------------------------------------
# Inserted parts
# --------------------------------------------------------------------------


def recommendation() -> str:
    """The headline: with a device comparison, R per shape decides it."""
    gpu = device_comparison()
    if gpu is not None:
        return gpu_recommendation(gpu)
    return (
        "**Keep the compiled baseline (`torch.compile`). Do not switch to the "
        "custom kernel yet.**\n"
    )


def gpu_recommendation(gpu: dict) -> str:
    ratios = [
        (group["shape"], ratio_r(group["providers"], R_BASELINES))
        for group in by_shape(gpu)
    ]
    lines = [
        f"- {shape}: R = min(eager, compile) / custom = {r:.3f}"
        if r is not None
        else f"- {shape}: R not available (a row was not timed or not valid)"
        for shape, r in ratios
    ]
    known = [r for _, r in ratios if r is not None]
    if known and len(known) == len(ratios) and all(r >= 1.0 for r in known):
        head = "**Use the custom kernel: it is at least as fast as both baselines"
        head += " at every shape measured.**"
    else:
        losses = sum(r is None or r < 1.0 for _, r in ratios)
        head = "**Keep the compiled baseline: it wins at "
        head += f"{losses} of {len(ratios)} shapes.**"
    return head + "\n\n" + "\n".join(lines) + "\n"


def cpu_comparison() -> str:
    """One sentence on how eager and compiled compare on this CPU."""
    cpu = comparison()
    if cpu is None:
        return NOT_MEASURED.rstrip(".")
    groups = by_shape(cpu)
    wins = [g["shape"] for g in groups if _faster(g)[0] == "compile"]
    losses = [g["shape"] for g in groups if _faster(g)[0] == "eager"]
    text = (
        f"host timings of CPU code, no evidence about a GPU: the compiled "
        f"baseline is faster than eager at {len(wins)} of {len(groups)} shapes"
    )
    if wins:
        text += f" ({', '.join(wins)})"
    if losses:
        text += f"; eager is faster at {', '.join(losses)}, where the call is so "
        text += "short that the compiled wrapper's own overhead dominates"
    return text


def identity() -> str:
    verdict = committed(KERNEL)
    kernel_file = verdict["contract"]["kernel_file"]
    current = evidence.sha256_file(ROOT / kernel_file)

    def match(sha: str) -> str:
        if sha == current:
            return "matches the file today"
        return "**differs from the file today: stale**"

    soft = verdict["software"]
    rows = [
        ["kernel source", _code(kernel_file)],
        [
            "source sha256 qualified",
            f"{_code(verdict['sha256'])} ({match(verdict['sha256'])})",
        ],
        [
            "qualified with",
            f"Python {inert(soft['python'])}, torch {inert(soft['torch'])}, "
            f"Triton {inert(soft['triton'])}, {inert(verdict['backend'])}",
        ],
    ]
    data = comparison()
    if data is None:
        rows.append(["compared with", "not measured yet"])
    else:
        ident = data["identity"]
        sha = data["kernels"][KERNEL]["sources"].get(kernel_file, "")
        dirty = " (uncommitted changes)" if ident.get("dirty") else ""
        rows.append(
            [
                "compared with",
                f"commit {_code(str(ident['commit'])[:7])}{dirty}, kernel sha256 "
                f"{_code(sha[:16])}… ({match(sha)}), {inert(data['device']['name'])}",
            ]
        )
    if not ARTIFACT_FILE.is_file():
        rows.append(["compiled artifact", "not built yet"])
    else:
        artifact = evidence.read("artifact", ARTIFACT_FILE).data
        rows.append(
            [
                "compiled artifact",
                f"`results/artifacts/{ARTIFACT_FILE.name}`: "
                f"{inert(artifact['target'])}, "
                f"Triton {inert(artifact['triton_version'])}, built from sha256 "
                f"{_code(artifact['source_sha256'][:16])}… "
                f"({match(artifact['source_sha256'])})",
            ]
        )
        for build in artifact["builds"]:
            rows.append(
                [f"cubin {_code(build['build'])}", _code(build["cubin_sha256"])]
            )
    return markdown_table(["what", "identity"], rows, escape=False) + "\n"


def correctness() -> str:
    verdict = committed(KERNEL)
    corpus = committed("corpus")["candidates"]
    c = verdict["counts"]
    broken = sum(e["expected_status"] == "rejected" for e in corpus)
    good = sum(e["expected_status"] == "qualified" for e in corpus)
    launch_only = [e["name"] for e in verdict["cases"] if e["mode"] == "launch only"]
    named = ", ".join(_code(n) for n in launch_only)
    return (
        f"- The evaluator ran {c['kernel_cases']} kernel cases and "
        f"{c['unsupported_cases']} unsupported-input cases ({c['calls']} calls, "
        f"{c['checks']} checks) on the kernel under the Triton interpreter: "
        f"**{inert(verdict['status'])}**.\n"
        f"- {len(launch_only)} cases were too large to interpret and had their "
        f"launch checked, not their values: {named}.\n"
        f"- The evaluator itself rejects all {broken} known-broken candidates of "
        f"its corpus, each by the check expected, and qualifies all {good} "
        "known-good ones.\n"
    )


def timing_boundary() -> str:
    data = comparison()
    if data is None:
        return f"- {NOT_MEASURED}\n"
    settings = data["settings"]
    flush = settings.get("flush_bytes", 0)
    if device_kind(data) == "cpu":
        timer = (
            f"- Timer: {_code(settings['timer'])}. On the CPU each sample is the host "
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
            f"- Timer: {_code(settings['timer'])}: device time between two CUDA events "
            f"around each call, after a write of {flush:,} bytes that evicts L2; "
            "host launch overhead outside the events is not included.\n"
        )
        custom = "- The custom kernel is timed like the baselines, interleaved.\n"
    text = (
        f"- Warmed: each provider ran for at least {settings['warmup_ms']:g} ms "
        f"after its first call; then {settings['rounds']} rounds of "
        f"{settings['repeats_per_round']} calls per provider, interleaved, the "
        "order rotated each round.\n"
    )
    if settings.get("compile"):
        text += f"- {inert(settings['compile'])}.\n"
    return timer + text + custom


def results_caption() -> str:
    data = comparison()
    if data is None:
        return NOT_MEASURED
    name = inert(data["device"]["name"])
    if device_kind(data) == "cpu":
        return (
            "Medians, with the 20th to 80th percentile in brackets. These are "
            f"host times of PyTorch's CPU kernels on {name}: they show how eager "
            "and compiled code compare on this CPU, nothing about a GPU."
        )
    return (
        "Medians, with the 20th to 80th percentile in brackets: device time on "
        f"{name}, measured {inert(data['identity']['started_utc'])}."
    )


def _spread(row: dict) -> str:
    return (
        f"{format_time(row['median_ms'])} ({format_time(row['p20_ms'])}"
        f" – {format_time(row['p80_ms'])})"
    )


def _correct(row: dict) -> bool:
    return bool(row.get("correct")) and row.get("correct_after_timing") is not False


def results_table() -> str:
    data = comparison()
    if data is None:
        return NOT_MEASURED + "\n"
    rows = []
    for group in by_shape(data):
        p = group["providers"]
        first = ", ".join(
            format_time(p[n]["first_call_ms"])
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
    return markdown_table(header, rows, escape=False) + "\n"


def rounds() -> str:
    """Every sample, by shape, provider and round, in microseconds (the
    page's placeholder sits indented in a fold; the build indents every
    line, so nothing here is indented)."""
    data = comparison()
    if data is None:
        return NOT_MEASURED + "\n"
    out = []
    for group in by_shape(data):
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
                rows.append((inert(name), r + 1, values))
        # Provider names come from the result file: inert, not only escaped.
        out.append(markdown_table(["provider", "round", "samples"], rows, escape=False))
        out.append("")
    return "\n".join(out)


def device_status() -> str:
    """Whether a device comparison exists (the page says what would make one)."""
    gpu = device_comparison()
    if gpu is not None:
        return (
            f"A device comparison exists: {inert(gpu['device']['name'])}, "
            f"{inert(gpu['identity']['started_utc'])}."
        )
    return "**The device comparison has not been run.**"
