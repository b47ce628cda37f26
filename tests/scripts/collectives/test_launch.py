"""The launcher with stand-in ranks (plain Python, no torch): rows arrive,
a failing rank is named, a hung group is killed at the deadline."""

import contextlib
import os
import socket
import sys

import pytest

from scripts.collectives import launch


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_rank_zero_rows_are_yielded():
    commands = [
        py('print(\'{"a": 1}\'); print("noise"); print(\'{"a": 2}\')'),
        py("pass"),
    ]
    assert [row["a"] for row in launch.rows(commands, timeout_s=20)] == [1, 2]


def test_a_failing_rank_is_named_with_its_last_error_line():
    commands = [py("import time; time.sleep(30)"), py("raise SystemExit('bad rank')")]
    with pytest.raises(launch.LaunchError, match="rank 1 failed: bad rank"):
        list(launch.rows(commands, timeout_s=20))


def test_the_deadline_kills_every_rank(tmp_path):
    """Ranks that never finish: the deadline raises, and both are gone."""
    pid_files = [tmp_path / f"rank{i}.pid" for i in range(2)]
    commands = [
        py(
            f"import os, time; open({str(f)!r}, 'w').write(str(os.getpid())); "
            "time.sleep(60)"
        )
        for f in pid_files
    ]
    rows = launch.rows(commands, timeout_s=1.0)
    with pytest.raises(launch.LaunchError, match="within 1 s"):
        list(rows)
    for f in pid_files:
        if f.exists():  # a rank that got as far as writing its pid
            with pytest.raises(ProcessLookupError):
                os.kill(int(f.read_text()), 0)


def test_ports():
    port = launch.free_port()
    assert 0 < port < 65536
    with contextlib.closing(socket.socket()) as busy:
        busy.bind(("127.0.0.1", 0))
        assert launch.port_in_use(busy.getsockname()[1])
