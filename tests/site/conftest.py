"""Fixtures for the site tests: one strict build of the real site per test
session, shared by the xdist workers, with Python's import-time report kept
to show what the build imported."""

from __future__ import annotations

import fcntl
import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers.shared import shared_dir
from tests.site.sitebuild import CONFIG, REPOSITORY, build_errors, run_build


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The real site, built strictly into a temporary folder, and the run
    (its ``elapsed_s`` attribute holds the build's wall time). The first
    worker to ask builds it under a lock; the others wait and reuse it, so a
    session pays for one build, not one per worker."""
    shared = shared_dir(tmp_path_factory)
    site, record = shared / "real-site", shared / "real-site.json"
    with open(shared / "real-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not record.exists():
            started = time.perf_counter()
            result = run_build(CONFIG, site, importtime=True, env=REPOSITORY)
            record.write_text(
                json.dumps(
                    {
                        "returncode": result.returncode,
                        "stdout": result.stdout,
                        "stderr": result.stderr,
                        "elapsed_s": time.perf_counter() - started,
                    }
                )
            )
    data = json.loads(record.read_text())
    result = subprocess.CompletedProcess(
        args=["properdocs", "build"],
        returncode=data["returncode"],
        stdout=data["stdout"],
        stderr=data["stderr"],
    )
    result.elapsed_s = data["elapsed_s"]
    if result.returncode != 0:
        pytest.fail(f"strict build failed:\n{build_errors(result)}")
    return site, result


@pytest.fixture(scope="session")
def built_site(site_build) -> Path:
    return site_build[0]
