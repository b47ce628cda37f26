"""Build the site (or a variant of it) from a test. Imported by the site tests
through conftest fixtures; not a test module itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MKDOCS = [sys.executable, "-m", "mkdocs"]


def run_mkdocs_build(config_file: Path, site_dir: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [
            *MKDOCS,
            "build",
            "--strict",
            "-q",
            "-f",
            str(config_file),
            "-d",
            str(site_dir),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def variant_config(tmp: Path, pages: dict[str, str]) -> Path:
    """A copy of mkdocs.yml whose docs folder holds only `pages`.

    Snippet paths still resolve against the repository root (the build runs
    there), so a page can include real snippet files or missing ones.
    """
    docs = tmp / "docs"
    for rel, text in pages.items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (docs / "assets").mkdir(exist_ok=True)
    (docs / "assets" / "site.css").write_text("", encoding="utf-8")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = re.sub(r"^docs_dir: .*$", f"docs_dir: {docs}", config, flags=re.M)
    config = config.replace("- scripts/hooks.py", f"- {ROOT / 'scripts' / 'hooks.py'}")
    path = tmp / "mkdocs.yml"
    path.write_text(config, encoding="utf-8")
    return path
