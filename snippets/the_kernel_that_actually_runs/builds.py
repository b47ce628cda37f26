"""Two builds, two timings: what changed, and which timer saw it.

Shown on docs/kernels/work-mapping/the-kernel-that-actually-runs.md. The
builds' facts come from the committed artifact of kernels/residual_add_relu.py
(compiled for sm_90a, no GPU). The timings in REPORT are an invented
colleague's report for the exercise, not a measurement. Evidence kind:
compiled artifact, plus a model of what each timer's interval contains.
"""

from __future__ import annotations

from evidence.tables import markdown_table
from snippets.lib.kernel_artifact import TRITON_DIVISIBILITY
from snippets.the_kernel_that_actually_runs.stages import artifact_build

# --8<-- [start:intervals]
# What each way of timing a call contains, first to last. A first call
# compiles (or loads from the cache), loads the module onto the device,
# launches and runs; a warmed kernel timer (CUDA events around many launches,
# or triton.testing.do_bench) keeps only the kernel's own interval.
PHASES = ("compile or cache load", "module load", "launch", "kernel")
TIMERS = {
    "first call, host clock": {"compile or cache load", "module load",
                               "launch", "kernel"},
    "warmed call, host clock": {"launch", "kernel"},
    "warmed kernel timer (events, do_bench)": {"kernel"},
}  # fmt: skip


def phases_seen(timer: str) -> list[str]:
    """The phases a timer's interval contains, in the order they happen."""
    if timer not in TIMERS:
        raise ValueError(f"timer must be one of {sorted(TIMERS)}, got {timer!r}")
    return [phase for phase in PHASES if phase in TIMERS[timer]]
    # --8<-- [end:intervals]


def timers_table() -> str:
    header = ["timer", *PHASES]
    rows = [
        (name, *("yes" if p in seen else "" for p in PHASES))
        for name, seen in TIMERS.items()
    ]
    return markdown_table(header, rows, "lcccc")


# --8<-- [start:diff]
FACTS = ("registers", "shared_bytes", "spill_store_bytes", "spill_load_bytes")


def memory_ops(build: dict) -> dict[str, int]:
    """SASS global loads and stores in the code, with counts."""
    return {
        op: n
        for op, n in build["sass_opcodes"].items()
        if op.startswith(("LDG", "STG"))
    }


def build_diff(before: str, after: str) -> dict[str, tuple]:
    """Each fact that differs between two builds: (before, after)."""
    a, b = artifact_build(before), artifact_build(after)
    changed = {f: (a[f], b[f]) for f in FACTS if a[f] != b[f]}
    if memory_ops(a) != memory_ops(b):
        changed["global memory instructions"] = (memory_ops(a), memory_ops(b))
    return changed
    # --8<-- [end:diff]


# The exercise: a colleague's report (invented numbers, not a measurement).
REPORT = {
    "before": {"build": "fp32-unaligned", "first_call_ms": 950.0,
               "warm_median_us": 9.1},
    "after": {"build": "fp32-aligned", "first_call_ms": 38.0,
              "warm_median_us": 8.9},
    "spread": 0.05,  # the warmed medians move this much between runs
}  # fmt: skip


# --8<-- [start:answer]
def what_changed(report: dict = REPORT) -> dict[str, object]:
    """The tested answer: what the artifacts and each timer support."""
    before, after = report["before"], report["after"]
    first = before["first_call_ms"] / after["first_call_ms"]
    warm = before["warm_median_us"] / after["warm_median_us"]
    return {
        "artifact": build_diff(before["build"], after["build"]),
        "first_call_ratio": first,
        "warm_ratio": warm,
        # A ratio inside the run-to-run spread is no evidence of a change.
        "kernel_faster": warm > 1 + report["spread"],
    }
    # --8<-- [end:answer]


def _ops(ops: dict[str, int]) -> str:
    return ", ".join(f"`{op}` × {n}" for op, n in ops.items())


def report_phrase(row: dict) -> str:
    """One row of the report, as a phrase."""
    return (
        f"`{row['build']}`: first call {row['first_call_ms']:g} ms, warmed "
        f"median {row['warm_median_us']:g} µs"
    )


def facts() -> dict[str, str]:
    """The report's rows and spread as the page states them, by name."""
    return {
        "report.before": report_phrase(REPORT["before"]),
        "report.after": report_phrase(REPORT["after"]),
        "spread": f"{100 * REPORT['spread']:.0f}%",
        **answer_facts(),
    }


def widest_access_bits(build: dict) -> int:
    """The widest global access of a build, in bits (`LDG.E.128` -> 128;
    a plain `LDG.E` is 32)."""
    widths = [op.rsplit(".", 1)[-1] for op in memory_ops(build)]
    return max(int(w) if w.isdigit() else 32 for w in widths)


def answer_facts() -> dict[str, str]:
    """The exercises' answers: what the artifacts and the timers show."""
    a = what_changed()
    ops_before, ops_after = a["artifact"]["global memory instructions"]
    regs = a["artifact"]["registers"]
    odd = artifact_build("fp32-aligned-pointers-odd-length")
    return {
        "answer.ops-before": _ops(ops_before),
        "answer.ops-after": _ops(ops_after),
        "answer.registers-before": f"{regs[0]}",
        "answer.registers-after": f"{regs[1]}",
        "answer.first-call-ratio": f"{a['first_call_ratio']:.0f}×",
        "answer.warm-ratio": f"{a['warm_ratio']:.2f}×",
        "odd.ops": _ops(memory_ops(odd)),
        "aligned.ops": _ops(memory_ops(artifact_build("fp32-aligned"))),
        "aligned.widest": f"{widest_access_bits(artifact_build('fp32-aligned'))}-bit",
        "divisibility": f"{TRITON_DIVISIBILITY}",
    }


if __name__ == "__main__":
    # What each timer contains and the colleague's report (the exercise's
    # question); the answers stay in their folds on the page.
    print(timers_table())
    given = facts()
    print("report before:", given["report.before"])
    print("report after:", given["report.after"])
    print("run-to-run spread of the warmed medians:", given["spread"])
