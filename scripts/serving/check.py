"""Write results/serving/check/replays.json: the simulator check's replays of the
committed serving runs, so that the site build reads them instead of
simulating (snippets/lib/serving/measured.py, STORED).

python -m scripts.serving.check
"""

from __future__ import annotations

import json

from snippets.lib.serving import measured


def main() -> int:
    record = measured.check_record()
    measured.CHECK.parent.mkdir(exist_ok=True)
    measured.CHECK.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {measured.CHECK.name} from {len(record['runs'])} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
