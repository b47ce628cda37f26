"""Measured facts the home page states, read from committed run records."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TINY_LM_RUN = ROOT / "results" / "tiny_lm" / "run.json"


#: The machine the notebook's recorded run trained on.
TINY_LM_CORES = 2


def tiny_lm_seconds(run_path: Path = TINY_LM_RUN) -> float:
    """The notebook's recorded training wall time, in seconds."""
    try:
        run = json.loads(run_path.read_text(encoding="utf-8"))
        seconds = float(run["train_wall_seconds"])
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(
            f"{run_path}: cannot read 'train_wall_seconds' ({exc}); "
            "re-run `make notebook`"
        ) from exc
    return seconds


def facts() -> dict[str, str]:
    """The tiny model's training time and machine, for the home page."""
    return {
        "tiny-lm.seconds": f"{tiny_lm_seconds():.0f} s",
        "tiny-lm.cores": f"{TINY_LM_CORES}-core",
    }


if __name__ == "__main__":
    given = facts()
    print(
        f"in {given['tiny-lm.seconds']} of CPU wall time on a "
        f"{given['tiny-lm.cores']} machine"
    )
