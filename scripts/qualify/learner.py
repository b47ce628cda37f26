"""The learner trust level: the process that runs a learner's files for the
practice grader (``scripts/practice/grader.py``), beside the hostile level
(``sandbox.py``, ``fork_server.py``, ``worker.py``) that qualification uses.

A learner's file is not an attacker's: no sandbox, no gate, no sealed
inputs. What it gets is what a learner needs: one process for a list of
files (torch and Triton load once), under ``TRITON_INTERPRET=1``, from the
file's own folder as the working directory (not an import root: ``-P``
where Python has it), with a time limit, an address-space limit and no core
files; what the files print comes back (``learner_child.py`` keeps it,
bounded); Ctrl-C, a hang or any fault of the parent ends the child's whole
process group. The child is ``scripts/qualify/learner_child.py``.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from scripts.qualify.sandbox import REPOSITORY, clamped

TIME_LIMIT_S = 120.0
MEMORY_BYTES = 12 << 30  # address space: torch, Triton and a 2 GiB window


def limits(memory_bytes: int = MEMORY_BYTES) -> Callable[[], None]:
    """What the child sets before exec: no core files, and the address space
    capped (soft: the child's own hard limit stays as the shell left it)."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = clamped(resource.RLIMIT_AS, memory_bytes)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

    return apply


def command(listing: Path) -> tuple[list[str], dict]:
    """The child's command line and environment: the repository on the
    path, the interpreter on."""
    path = os.pathsep.join(
        p for p in (str(REPOSITORY), os.environ.get("PYTHONPATH")) if p
    )
    env = {
        **os.environ,
        "TRITON_INTERPRET": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": path,
    }
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    child = [sys.executable, *safe, "-m", "scripts.qualify.learner_child"]
    return [*child, str(listing)], env


def run(
    jobs: list[tuple[Path, Path]],
    limit_s: float = TIME_LIMIT_S,
    progress: Callable | None = None,
    memory_bytes: int = MEMORY_BYTES,
) -> str | None:
    """Run the learner's files ``(file, job folder)``, one after another, in
    one process; None, or why the child did not finish ("timeout",
    "signal N", "exit N"). ``progress`` is called about every half second
    with the running case's name and its seconds so far. Ctrl-C (or any
    exception here) ends the child's group."""
    listing = jobs[0][1].parent / f"jobs-{jobs[0][1].name}.txt"
    listing.write_text("".join(f"{path}\t{job}\n" for path, job in jobs))
    argv, env = command(listing)
    marker = Path(f"{listing}.progress")
    with (jobs[0][1] / "child.log").open("wb") as log:
        process = subprocess.Popen(
            argv, cwd=jobs[0][0].parent, env=env, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=limits(memory_bytes),
        )  # fmt: skip
        try:
            code = _wait(process, limit_s, marker, progress)
        finally:
            if process.poll() is None:  # a hang, Ctrl-C, or the parent's fault
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    if code is None:
        return "timeout"
    if code < 0:
        return f"signal {-code}"
    return None if code == 0 else f"exit {code}"


def _wait(process, limit_s: float, marker: Path, progress) -> int | None:
    """The child's exit code, or None past the limit."""
    began = time.monotonic()
    case, since = "", began
    while True:
        try:
            return process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now - began > limit_s:
            return None
        current = marker.read_text() if marker.exists() else ""
        if current != case:
            case, since = current, now
        if progress and case:
            progress(case, now - since)
