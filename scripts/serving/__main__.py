"""Measure the serving engine under Poisson load and write a result file.

python -m scripts.serving                  # CPU, profile quick (about a minute)
python -m scripts.serving --dry-run        # four tiny requests: a smoke test
python -m scripts.serving --device cuda    # record a GPU's step times
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evidence import RESULTS_DIR, display_path, write
from scripts.serving.loadgen import PROFILES, output_path, run


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m scripts.serving")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    parser.add_argument("--dry-run", action="store_true", help="profile tiny")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "serving")
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    profile = "tiny" if args.dry_run else args.profile
    result = run(profile, args.device, args.seed, argv)
    path = write("serving", output_path(result, args.out), result)
    for load in result["loads"]:
        s = load["summary"]
        print(
            f"{load['offered_rps']:5.1f} req/s offered: "
            f"{s['output_tokens_per_s']:6.1f} tok/s, "
            f"TTFT p50/p99 {s['ttft_p50_s'] * 1e3:.0f}/{s['ttft_p99_s'] * 1e3:.0f} ms, "
            f"TPOT p50/p99 {s['tpot_p50_s'] * 1e3:.1f}/{s['tpot_p99_s'] * 1e3:.1f} ms"
        )
    print(f"wrote {display_path(path)} ({result['device']['name']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
