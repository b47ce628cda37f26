"""Profile training steps of the tiny language model on the CPU.

`python -m scripts.tiny_lm.profile` loads results/tiny_lm/checkpoint.pt,
runs a few warm-up steps, then records PROFILED_STEPS training steps
(forward, backward, the Adam update) with torch.profiler, each phase inside
a `record_function` range. It writes results/tiny_lm/profile.cpu.json: the
run's identity (commit, software, CPU), the workload, and a top-down summary
of the trace: step -> phase -> operator, with self and total CPU times.

The page (docs/foundations/from-trace-to-kernel.md) reads that file through
snippets/from_trace_to_kernel/trace.py. CPU times only: no GPU number is
made or implied here.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from evidence import sha256_bytes
from evidence.provenance import device_info, git_identity, software_info
from scripts.cli import OneLineParser
from snippets.from_trace_to_kernel.record import summarise, training_step_in_ranges

PROG = "python -m scripts.tiny_lm.profile"

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results" / "tiny_lm"
OUT = RESULTS / "profile.cpu.json"
COMMAND = "python -m scripts.tiny_lm.profile"
WARMUP_STEPS = 3
PROFILED_STEPS = 5
THREADS = 1  # one core: the shared build machine's timings stay comparable


def profile_steps(checkpoint: Path, steps: int, warmup: int) -> tuple[dict, dict]:
    """Run and profile training steps; returns (summary, workload)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    from snippets.lib.tiny_lm.checkpoint import load_checkpoint
    from snippets.lib.tiny_lm.model import Adam, get_batch, split_corpus

    torch.manual_seed(0)
    torch.set_num_threads(THREADS)
    record = json.loads((RESULTS / "run.json").read_text(encoding="utf-8"))
    model = load_checkpoint(checkpoint).train()
    optimizer = Adam(model.parameters(), lr=1e-4)
    corpus = (RESULTS / "corpus.txt").read_text(encoding="utf-8")
    train_ids, _ = split_corpus(corpus, record["heldout_fraction"])
    generator = torch.Generator().manual_seed(0)
    batch, context = record["batch_size"], model.config["context"]

    def one_step():
        inputs, targets = get_batch(train_ids, batch, context, generator)
        training_step_in_ranges(model, optimizer, inputs, targets)

    for _ in range(warmup):
        one_step()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            one_step()
    summary = summarise(prof.events())
    workload = {
        "what": "training steps of the tiny language model: forward, "
        "backward, Adam update",
        "checkpoint_sha256": sha256_bytes(Path(checkpoint).read_bytes()),
        "config": model.config,
        "batch_size": batch,
        "context": context,
        "warmup_steps": warmup,
        "profiled_steps": steps,
        "torch_threads": THREADS,
    }
    return summary, workload


def build_record(summary: dict, workload: dict, identity: dict) -> dict:
    return {
        "schema": 1,
        "evidence": "CPU run: torch.profiler CPU times on the machine named "
        "here; no GPU involved",
        "made_by": COMMAND,
        **identity,
        "workload": workload,
        "trace": summary,
    }


def main(argv: list[str] | None = None) -> Path:
    parser = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=PROFILED_STEPS)
    parser.add_argument("--warmup", type=int, default=WARMUP_STEPS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.steps < 1:
        raise SystemExit(f"--steps must be at least 1, got {args.steps}")
    summary, workload = profile_steps(
        RESULTS / "checkpoint.pt", args.steps, args.warmup
    )
    identity = {
        "git": git_identity(),
        "software": software_info(),
        "device": device_info("cpu"),
        "created_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    record = build_record(summary, workload, identity)
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return args.out


if __name__ == "__main__":
    main()
