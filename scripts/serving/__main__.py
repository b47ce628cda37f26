"""Measure the serving engine under Poisson load and write a result file.

python -m scripts.serving                  # CPU, profile quick (a few minutes)
python -m scripts.serving.check            # then store the simulator check
python -m scripts.serving --dry-run        # four tiny requests: a smoke test
python -m scripts.serving --device cuda    # record a GPU's step times
"""

from __future__ import annotations

import sys
from pathlib import Path

from evidence import RESULTS_DIR, display_path
from scripts.cli import OneLineParser
from scripts.serving.loadgen import PROFILES, run


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = OneLineParser(
        prog="python -m scripts.serving", tool="serving", exit_code=2
    )
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    parser.add_argument("--dry-run", action="store_true", help="profile tiny")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "serving")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error(f"--threads must be at least 1, got {args.threads}")

    import torch

    torch.set_num_threads(args.threads)
    profile = "tiny" if args.dry_run else args.profile
    result, path = run(profile, args.device, args.seed, argv, args.out)
    print(f"wrote {display_path(path)} ({result['device']['name']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
