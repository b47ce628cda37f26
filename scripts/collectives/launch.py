"""Start N local ranks, read rank 0's rows, and always clean up.

Each rank is its own process group leader (``start_new_session``), so a
kill reaches anything it started too. ``ranks`` is a context manager whose
exit kills every rank still running, on every path: normal end, error,
timeout, Ctrl-C, or SIGTERM (which ``scripts.collectives.__main__`` turns
into an exception).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from evidence import ROOT


class LaunchError(RuntimeError):
    """A rank failed or the group did not finish; the message is one line."""


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def free_port() -> int:
    """A port the kernel just gave out on loopback (a rival could still take
    it before rank 0 binds it; the rendezvous then fails with a message)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def worker_command(spec: dict) -> list[str]:
    return [sys.executable, "-m", "scripts.collectives.worker", json.dumps(spec)]


def _kill(processes: list[subprocess.Popen]) -> None:
    for proc in processes:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
    for proc in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)


def _last_line(path: Path) -> str:
    try:
        lines = [
            ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()
        ]
    except OSError:
        return ""
    return lines[-1].strip()[:200] if lines else ""


@contextlib.contextmanager
def ranks(commands: list[list[str]], env: dict | None = None) -> Iterator[tuple]:
    """Start one process per command (rank 0 first); yield (processes,
    rank 0's stdout, stderr file paths). Kills every survivor on exit."""
    processes: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="collectives-") as tmp:
        errs = [Path(tmp, f"rank{i}.err") for i in range(len(commands))]
        try:
            for i, command in enumerate(commands):
                with open(errs[i], "wb") as err:
                    processes.append(
                        subprocess.Popen(
                            command,
                            cwd=ROOT,
                            env=env,
                            stdout=subprocess.PIPE if i == 0 else subprocess.DEVNULL,
                            stderr=err,
                            start_new_session=True,
                        )
                    )
            yield processes, processes[0].stdout, errs
        finally:
            _kill(processes)
            if processes and processes[0].stdout:
                processes[0].stdout.close()


def rows(commands: list[list[str]], timeout_s: float, env: dict | None = None):
    """Yield each JSON row rank 0 prints, until every rank exits. Raises
    LaunchError naming the rank when one fails or the deadline passes."""
    with ranks(commands, env) as (processes, out, errs):
        lines: queue.Queue = queue.Queue()

        def pump():
            for raw in out:
                lines.put(raw)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LaunchError(
                    f"the ranks did not finish within {timeout_s:g} s "
                    "(raise --timeout, or sweep fewer or smaller sizes)"
                )
            try:
                raw = lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                _check_exits(processes, errs)
                continue
            if raw is None:
                break
            try:
                yield json.loads(raw)
            except ValueError:
                continue  # a stray line from a library; rows are JSON
        for proc in processes:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise LaunchError(
                    f"a rank did not exit within {timeout_s:g} s of starting"
                ) from None
        _check_exits(processes, errs)


def _check_exits(processes, errs) -> None:
    for i, proc in enumerate(processes):
        code = proc.poll()
        if code not in (None, 0):
            detail = _last_line(errs[i]) or f"exit status {code}"
            raise LaunchError(f"rank {i} failed: {detail}")
