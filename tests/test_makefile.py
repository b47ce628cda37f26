"""The Makefile's targets work from any checkout, whichever .venv they use.

A second checkout that shares another's environment (``VENV=../a/.venv``)
must build and test its own files: the editable install names one checkout,
so every target puts its own checkout first on the path, and never re-points
a shared environment at itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("Makefile", "pyproject.toml", "package.json", "package-lock.json")


def checkout(folder: Path) -> Path:
    """A stand-in checkout: the Makefile and what its stamps depend on, and a
    `scripts` package that says where it lives."""
    folder.mkdir()
    for name in COPIED:
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "requirements", folder / "requirements")
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / ".installed").touch()
    (folder / "scripts").mkdir()
    (folder / "scripts" / "__init__.py").write_text("")
    return folder


def shared_venv(folder: Path) -> Path:
    """An environment outside the checkout whose `properdocs` reports which
    `scripts` package it imports, from outside any checkout (as a console
    script does: its sys.path starts at bin/, not the working folder)."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    stub = bin_dir / "properdocs"
    stub.write_text(
        "#!/bin/sh\ncd / && exec "
        f"{sys.executable} -c 'import scripts; print(scripts.__file__)'\n"
    )
    stub.chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    return folder


def make(target: str, where: Path, venv: Path, *flags: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MAKEFLAGS")}
    done = subprocess.run(
        ["make", "--no-print-directory", *flags, target, f"VENV={venv}"],
        cwd=where, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def second(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    return checkout(tmp_path / "second"), shared_venv(tmp_path / "venv")


def test_a_checkout_sharing_an_environment_builds_its_own_files(second):
    where, venv = second
    (venv / ".installed-cpu.txt").touch()  # the stamps are fresh
    printed = make("build", where, venv)
    assert printed.strip().endswith(str(where / "scripts" / "__init__.py")), printed


def test_a_shared_environment_is_never_re_pointed_at_this_checkout(second):
    where, venv = second
    printed = make("build", where, venv, "-n").splitlines()
    [editable] = [line for line in printed if "--editable" in line]
    # Installed editable only if the environment names no checkout yet.
    assert editable.startswith("(cd / && env -u PYTHONPATH"), editable
    assert "import kernels" in editable and "||" in editable, editable


def test_an_environment_inside_the_checkout_is_pointed_at_it(second):
    where, _ = second
    printed = make("build", where, where / ".venv", "-n").splitlines()
    [editable] = [line for line in printed if "--editable" in line]
    assert editable.lstrip().startswith(f"{where}/.venv/bin/python -m pip"), editable
