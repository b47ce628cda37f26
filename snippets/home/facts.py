"""Measured facts the home page states, read from committed run records."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TINY_LM_RUN = ROOT / "results" / "tiny_lm" / "run.json"


def tiny_lm_training_text(run_path: Path = TINY_LM_RUN) -> str:
    """'in 27 s of CPU wall time' from the notebook's recorded run."""
    try:
        run = json.loads(run_path.read_text(encoding="utf-8"))
        seconds = float(run["train_wall_seconds"])
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(
            f"{run_path}: cannot read 'train_wall_seconds' ({exc}); "
            "re-run `make notebook`"
        ) from exc
    return f"in {seconds:.0f} s of CPU wall time on a 2-core machine"


if __name__ == "__main__":
    print(tiny_lm_training_text())
