"""ruff's lint and format checks, so CI holds code to the house style."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ruff_check_passes():
    result = ruff("check", ".")
    assert result.returncode == 0, result.stdout[-3000:]


def test_ruff_format_check_passes():
    result = ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout[-3000:] + "\nrun: make format"
