"""One run's result file: a new name, validated atomic rewrites.

The runner rewrites its file after every shape, so an interrupted run keeps
what it measured; every write is validated against the bench schema first,
so a malformed file is never left behind for the site to trip over.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evidence import display_path, dumps, validate
from evidence.method import check_consistency


class ResultWriter:
    """Writes one run's result file, claiming a name no other file has.

    Every write goes to a temporary file first; the first write links it to
    the final name (os.link fails if that name exists, so another run's file
    is never replaced) and later writes os.replace our own file.
    """

    def __init__(self, out_dir: Path, stem: str):
        self.out_dir = Path(out_dir)
        self.stem = stem
        self.path: Path | None = None

    def _candidates(self):
        yield self.out_dir / f"{self.stem}.json"
        for i in range(2, 10_000):
            yield self.out_dir / f"{self.stem}-{i}.json"

    def write(self, data: dict[str, Any]) -> Path:
        shown = display_path(self.path or self.out_dir / f"{self.stem}.json")
        validate("bench", data, shown)
        check_consistency(data, shown)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.out_dir / f".{self.stem}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(dumps(data))
            handle.flush()
            os.fsync(handle.fileno())
        if self.path is not None:
            os.replace(tmp, self.path)
            return self.path
        try:
            for candidate in self._candidates():
                if self._claim(tmp, candidate):
                    self.path = candidate
                    return candidate
            raise FileExistsError(f"no free result name for {self.stem}")
        finally:
            if tmp.exists():
                tmp.unlink()

    @staticmethod
    def _claim(tmp: Path, candidate: Path) -> bool:
        try:
            os.link(tmp, candidate)
            return True
        except FileExistsError:
            return False
        except OSError:  # no hard links here: reserve the name exclusively
            try:
                fd = os.open(candidate, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return False
            os.close(fd)
            os.replace(tmp, candidate)
            return True
