"""Read a profile top down (lesson: From a service trace down to a kernel).

The committed trace is results/tiny_lm/profile.cpu.json, written by
`python -m scripts.tiny_lm.profile` (torch.profiler, CPU only). Functions
here take the record as a dict, so the tests can feed them a small fixture;
the *_text functions read the committed file for the page.
"""

import json
from pathlib import Path

from evidence.tables import markdown_table
from snippets.lib.amdahl import (
    overall_speedup,
    required_kernel_speedup,
    speedup_cap,
)

PROFILE = (
    Path(__file__).resolve().parents[2] / "results" / "tiny_lm" / "profile.cpu.json"
)
PHASES = ("forward", "backward", "optimizer")
# The matrix-multiply operators of this model's forward and backward.
MATMULS = ("aten::mm", "aten::addmm", "aten::bmm")

# An invented GPU timeline for the last exercise (fractions of one step),
# never a measurement: the shape of what Nsight Systems shows.
GPU_EXERCISE = {"gpu_busy": 0.70, "attention_kernels": 0.25}


def load(path: Path = PROFILE) -> dict:
    record = json.loads(Path(path).read_text(encoding="utf-8"))
    if record.get("schema") != 1 or "trace" not in record:
        raise ValueError(f"path {path} holds no schema-1 profile record")
    return record


# --8<-- [start:top-down]
def per_step_ms(record: dict, microseconds: float) -> float:
    return microseconds / 1000 / record["workload"]["profiled_steps"]


def phase_shares(record: dict) -> dict[str, float]:
    """Each phase's share of the step's CPU time: the first level down."""
    trace = record["trace"]
    phases = {p["name"]: p for p in trace["phases"]}
    return {name: phases[name]["total_us"] / trace["step_total_us"] for name in PHASES}


def op_self_us(record: dict) -> dict[str, float]:
    """Self time per operator, summed over the phases: the bottom level.
    Self time excludes the operators it called, so nothing counts twice."""
    totals: dict[str, float] = {}
    for phase in record["trace"]["phases"]:
        for op in phase["top_ops"]:
            totals[op["name"]] = totals.get(op["name"], 0.0) + op["self_us"]
    return totals


def hottest_op(record: dict) -> tuple[str, float]:
    """The operator with the most self time and its share of the step."""
    totals = op_self_us(record)
    name = max(sorted(totals), key=totals.__getitem__)
    return name, totals[name] / record["trace"]["step_total_us"]


def family_share(record: dict, names: tuple[str, ...] = MATMULS) -> float:
    """Share of the step spent inside a family of operators (self time)."""
    totals = op_self_us(record)
    return sum(totals.get(n, 0.0) for n in names) / record["trace"]["step_total_us"]


# --8<-- [end:top-down]


def phase_table(record: dict) -> str:
    shares = phase_shares(record)
    phases = {p["name"]: p for p in record["trace"]["phases"]}
    rows = [
        [
            name,
            f"{per_step_ms(record, phases[name]['total_us']):.2f}",
            f"{shares[name]:.0%}",
        ]
        for name in PHASES
    ]
    rest = 1 - sum(shares.values())
    step_ms = per_step_ms(record, record["trace"]["step_total_us"])
    rows.append(
        ["rest of the step (batch, zero_grad)", f"{step_ms * rest:.2f}", f"{rest:.0%}"]
    )
    return markdown_table(["phase", "CPU ms per step", "share"], rows, "lrr") + "\n"


def ops_table(record: dict, rows: int = 8) -> str:
    totals = op_self_us(record)
    step = record["trace"]["step_total_us"]
    where: dict[str, list[str]] = {}
    calls: dict[str, int] = {}
    for phase in record["trace"]["phases"]:
        for op in phase["top_ops"]:
            where.setdefault(op["name"], []).append(phase["name"])
            calls[op["name"]] = calls.get(op["name"], 0) + op["calls"]
    steps = record["workload"]["profiled_steps"]
    ranked = sorted(totals, key=lambda n: (-totals[n], n))[:rows]
    body = [
        [
            f"`{name}`",
            ", ".join(where[name]),
            f"{calls[name] / steps:g}",
            f"{per_step_ms(record, totals[name]):.2f}",
            f"{totals[name] / step:.0%}",
        ]
        for name in ranked
    ]
    header = [
        "operator",
        "phase",
        "calls per step",
        "self CPU ms per step",
        "share of step",
    ]
    return markdown_table(header, body, "llrrr", escape=False) + "\n"


def trace_phase_table() -> str:
    return phase_table(load())


def trace_ops_table() -> str:
    return ops_table(load())


def trace_facts(record: dict) -> dict[str, str]:
    """Numbers and names from a trace record, for the page's prose."""
    name, share = hottest_op(record)
    matmul = family_share(record)
    shares = phase_shares(record)
    return {
        "step_ms": f"{per_step_ms(record, record['trace']['step_total_us']):.1f} ms",
        "steps": str(record["workload"]["profiled_steps"]),
        "cpu": record["device"]["name"],
        "threads": str(record["workload"]["torch_threads"]),
        "torch": record["software"]["torch"],
        "top_phase": max(PHASES, key=shares.__getitem__),
        "top_phase_share": f"{max(shares.values()):.0%}",
        "top_op": f"`{name}`",
        "top_op_share": f"{share:.0%}",
        "top_op_cap": f"{speedup_cap(share):.2f}×",
        "matmul_share": f"{matmul:.0%}",
        "matmul_cap": f"{speedup_cap(matmul):.2f}×",
        "matmul_3x": f"{overall_speedup(matmul, 3.0):.2f}×",
        "matmul_for_1.2": fmt_required(matmul, 1.2),
        "optimizer_share": f"{shares['optimizer']:.0%}",
    }


def fmt_required(fraction: float, target: float) -> str:
    needed = required_kernel_speedup(fraction, target)
    return "no finite speedup" if needed == float("inf") else f"{needed:.2f}×"


def gpu_exercise_facts() -> dict[str, str]:
    """The invented GPU timeline's givens and answers."""
    busy, attention = GPU_EXERCISE["gpu_busy"], GPU_EXERCISE["attention_kernels"]
    return {
        "busy": f"{busy:.0%}",
        "idle": f"{1 - busy:.0%}",
        "attention": f"{attention:.0%}",
        "attention_cap": f"{speedup_cap(attention):.2f}×",
        "idle_cap": f"{speedup_cap(1 - busy):.2f}×",
    }


def facts() -> dict[str, str]:
    """Every value the page states by name; a page reads one as
    ``<!-- fact: snippets/from_trace_to_kernel/trace.py:trace.step_ms -->``."""
    out = {f"trace.{k}": v for k, v in trace_facts(load()).items()}
    out.update({f"gpu.{k}": v for k, v in gpu_exercise_facts().items()})
    return out


if __name__ == "__main__":
    record = load()
    print(phase_table(record))
    found = trace_facts(record)
    for field in ("step_ms", "top_op", "top_op_share", "top_op_cap", "matmul_share"):
        print(f"{field}: {found[field]}")
