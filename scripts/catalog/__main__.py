"""Write results/kernels.json from the kernel descriptors.

Usage::

    python -m scripts.catalog            # rewrite results/kernels.json
    python -m scripts.catalog --check    # exit 1 if it is out of date
    python -m scripts.catalog --out PATH # write somewhere else
"""

from __future__ import annotations

import sys
from pathlib import Path

import evidence
from scripts.catalog import PATH, catalog
from scripts.cli import OneLineParser

EXIT_OK = 0
EXIT_STALE = 1


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m scripts.catalog")
    parser.add_argument("--out", type=Path, default=PATH, help="file to write")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when the file differs from the descriptors",
    )
    args = parser.parse_args(argv)
    data = catalog()
    shown = evidence.display_path(args.out)
    if args.check:
        committed = args.out.read_text("utf-8") if args.out.is_file() else None
        if committed != evidence.dumps(data):
            print(f"{shown} is out of date: run make catalog", file=sys.stderr)
            return EXIT_STALE
        print(f"{shown} is up to date")
        return EXIT_OK
    evidence.write("catalog", args.out, data)
    print(f"wrote {shown}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
