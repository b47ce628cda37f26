"""Work that every xdist worker of a test session would otherwise repeat:
done once, under a lock, by the first worker to ask; the others read it."""

from __future__ import annotations

import fcntl
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def shared_dir(tmp_path_factory) -> Path:
    """A folder every worker of this session sees: the parent of the
    workers' own temporary roots under xdist, the root itself without it."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if root.name.startswith("popen-gw") else root


def once_per_session(tmp_path_factory, name: str, compute: Callable[[], Any]) -> Any:
    """compute()'s JSON-serialisable result, computed once per session."""
    folder = shared_dir(tmp_path_factory)
    record = folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not record.exists():
            record.write_text(json.dumps(compute()))
    return json.loads(record.read_text())
