"""Measure collectives among local processes and write a result file.

python -m scripts.collectives                       # gloo on the CPU, worlds 2 and 4
python -m scripts.collectives --worlds 2 --sizes 4096,65536,1048576
python -m scripts.collectives --data-parallel       # also the tiny LM's DP step
python -m scripts.collectives --backend nccl        # one rank per GPU

A CPU run is CPU processes on one host over loopback: it measures the
software path and the alpha-beta model's fit, never NVLink or InfiniBand.
Exit codes: 0 complete, 1 partial (a rank failed or timed out; the partial
file is written), 2 bad arguments, 130 interrupted (the partial file is
written).
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from evidence import RESULTS_DIR, display_path, write
from scripts.cli import OneLineParser
from snippets.lib.collectives import COLLECTIVES, fmt_bytes, fmt_rate, fmt_seconds

DEFAULT_SIZES = [4**k * 1024 for k in range(1, 8)]  # 4 KiB .. 16 MiB, x4


def _int_list(text: str, what: str, parser) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--{what} takes comma-separated integers, got {text!r}")
    if not values:
        parser.error(f"--{what} is empty")
    return values


def parse(argv: list[str]) -> dict:
    parser = OneLineParser(prog="python -m scripts.collectives", tool="collectives")
    parser.add_argument("--worlds", default="2,4", help="world sizes, e.g. 2,4")
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, DEFAULT_SIZES)),
        help="message sizes in bytes (nccl-tests' size: the full buffer)",
    )
    parser.add_argument("--collectives", default=",".join(COLLECTIVES))
    parser.add_argument(
        "--iters", type=int, default=20, help="timed calls per point (median)"
    )
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--backend", choices=("auto", "gloo", "nccl"), default="auto")
    parser.add_argument(
        "--port", type=int, default=0, help="rendezvous port (0: pick one)"
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds per world size"
    )
    parser.add_argument("--data-parallel", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "collectives")
    args = parser.parse_args(argv)

    from scripts.collectives import launch, sweep

    worlds = _int_list(args.worlds, "worlds", parser)
    sizes = _int_list(args.sizes, "sizes", parser)
    names = [n.strip() for n in args.collectives.split(",") if n.strip()]
    for name in names:
        if name not in COLLECTIVES:
            parser.error(
                f"unknown collective {name!r}; choose from {','.join(COLLECTIVES)}"
            )
    if args.iters < 1 or args.warmup < 0:
        parser.error("--iters must be at least 1 and --warmup at least 0")
    if not 0 < args.timeout <= 3600:
        parser.error(f"--timeout must lie in (0, 3600] seconds, got {args.timeout:g}")
    for size in sizes:
        if size <= 0:
            parser.error(f"message size {size} must be positive bytes (try 4096)")
    backend = sweep.pick_backend(args.backend)
    if backend == "nccl":
        import torch

        if not torch.cuda.is_available():
            parser.error("--backend nccl needs CUDA; use --backend gloo on a CPU")
    limit = sweep.max_world(backend)
    for world in worlds:
        if world < 2:
            parser.error(f"world size {world} is below 2: a collective needs two ranks")
        if world > limit:
            where = (
                f"{limit} GPUs" if backend == "nccl" else f"{limit} ranks (2 per CPU)"
            )
            parser.error(f"world size {world} is more than this machine runs: {where}")
    if args.port:
        if not 1024 <= args.port <= 65535:
            parser.error(f"--port {args.port} must lie in 1024..65535")
        if launch.port_in_use(args.port):
            parser.error(
                f"port {args.port} is in use on 127.0.0.1; pass another --port "
                "or leave it out to pick a free one"
            )
    return {
        "settings": {
            "backend": backend,
            "world_sizes": worlds,
            "sizes": sizes,
            "collectives": names,
            "iters": args.iters,
            "warmup": args.warmup,
            "timeout_s": args.timeout,
            "dtype": "float32",
            "threads_per_rank": 1,
            "data_parallel": args.data_parallel,
            "port": args.port,
        },
        "out": args.out,
    }


def _sigterm(signum, frame):
    raise KeyboardInterrupt  # the same clean-up and partial file as Ctrl-C


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parsed = parse(argv)
    from scripts.collectives import sweep

    previous = signal.signal(signal.SIGTERM, _sigterm)
    try:
        result = sweep.run(parsed["settings"], argv)
    finally:
        signal.signal(signal.SIGTERM, previous)
    path = write("collectives", sweep.output_path(result, parsed["out"]), result)
    for fit in result["fits"]:
        beta = fit["beta_s_per_byte"]
        rate = fmt_rate(1 / beta) if beta > 0 else "not resolved (noise)"
        print(
            f"{fit['collective']:>14} n={fit['world']}: "
            f"alpha {fmt_seconds(fit['alpha_s'])}, 1/beta {rate}, "
            f"held-back error {fit['held_back_mean_rel_error']:.0%}"
        )
    dp = result.get("data_parallel")
    if dp:
        print(
            f"data-parallel step, 2 ranks: max weight difference "
            f"{dp['max_abs_weight_difference']:.1e} (tolerance {dp['tolerance']:.0e}); "
            f"all-reduce of {fmt_bytes(dp['gradient_bytes'])} "
            f"{fmt_seconds(dp['all_reduce_seconds'])}"
        )
    print(f"wrote {display_path(path)} ({result['run_status']}: {result['evidence']})")
    if result["run_status"] == "partial":
        print(f"collectives: {result['interrupted']}", file=sys.stderr)
        return 130 if result["interrupted"].startswith("interrupted") else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
