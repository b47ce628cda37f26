"""Fixtures for the site tests: one strict build of the real site per worker."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sitebuild import ROOT, run_mkdocs_build  # noqa: E402


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built strictly into a temporary folder."""
    site = tmp_path_factory.mktemp("site")
    result = run_mkdocs_build(ROOT / "mkdocs.yml", site)
    if result.returncode != 0:
        pytest.fail(f"strict build failed:\n{result.stderr[-4000:]}")
    return site
