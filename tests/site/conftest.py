"""Fixtures for the site tests: one strict build of the real site per worker,
with Python's import-time report kept to show what the build imported."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.site.sitebuild import CONFIG, build_errors, run_build


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The real site, built strictly into a temporary folder, and the run
    (its ``elapsed_s`` attribute holds the build's wall time)."""
    site = tmp_path_factory.mktemp("site")
    started = time.perf_counter()
    result = run_build(CONFIG, site, importtime=True)
    result.elapsed_s = time.perf_counter() - started
    if result.returncode != 0:
        pytest.fail(f"strict build failed:\n{build_errors(result)}")
    return site, result


@pytest.fixture(scope="session")
def built_site(site_build) -> Path:
    return site_build[0]
