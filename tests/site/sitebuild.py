"""Build the site (or a variant of it) from a test. Imported by the site tests
and their conftest fixtures; not a test module itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"
HOOKS = "scripts/site/hooks.py"
THEME_HOOKS = "scripts/site/theme_hooks.py"
PROPERDOCS = [sys.executable, "-m", "properdocs"]
# ProperDocs' own MkDocs 2 notice, and Material's.
QUIET = {"DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
#: A build that has not finished by then hung: eighty times the cold build's
#: 15 s budget, so a busy machine is never taken for a hang.
BUILD_HANG_S = 1200
#: What the Pages workflow passes (.github/workflows/pages.yml), with a stand-in
#: repository: the real site is tested with its "Edit this page" links on.
REPOSITORY = {
    "SITE_EDIT_URI": "https://github.com/example-owner/gpu-perf-site/edit/main/docs/"
}
IMPORT_LINE_RE = re.compile(r"^import time:\s*\d+ \|\s*\d+ \|(?P<name> +\S+)$", re.M)


def run_build(
    config_file: Path,
    site_dir: Path,
    *,
    importtime: bool = False,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """`properdocs build --strict` of config_file into site_dir; with
    importtime, Python's `-X importtime` report is in the result's stderr;
    env adds variables to the build's environment."""
    python = [*PROPERDOCS[:1], "-X", "importtime", *PROPERDOCS[1:]]
    try:
        return _run_build(
            python if importtime else PROPERDOCS, config_file, site_dir, importtime, env
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"the site build hung: no result after {BUILD_HANG_S} s"
        ) from None


def _run_build(command, config_file, site_dir, importtime, env):
    return subprocess.run(
        [
            *command,
            "build",
            "--strict",
            "-q",
            "-f",
            str(config_file),
            "-d",
            str(site_dir),
        ],
        cwd=ROOT,
        # The import report must see every page module imported: no cache.
        env=dict(
            os.environ,
            **QUIET,
            **({"SITE_BUILD_CACHE": "off"} if importtime else {}),
            **(env or {}),
        ),
        capture_output=True,
        text=True,
        timeout=BUILD_HANG_S,
    )


def build_errors(result: subprocess.CompletedProcess, chars: int = 4000) -> str:
    """The end of a build's stderr without its import-time report."""
    lines = result.stderr.splitlines()
    return "\n".join(x for x in lines if not x.startswith("import time:"))[-chars:]


def imported_by(importtime_report: str, package: str) -> list[str]:
    """Import chains (`package <- importer <- ...`) for each time the report
    shows `package` itself imported: empty when it never was. Python prints
    a module's line after those of the modules it imported, indented one
    level deeper per level of nesting."""
    modules = [
        (len(m["name"]) - len(m["name"].lstrip()), m["name"].strip())
        for m in IMPORT_LINE_RE.finditer(importtime_report)
    ]
    chains = []
    for index, (depth, name) in enumerate(modules):
        if name != package:
            continue
        chain = [name]
        for outer_depth, outer in modules[index + 1 :]:
            if outer_depth < depth:
                chain.append(outer)
                depth = outer_depth
        chains.append(" <- ".join(chain))
    return chains


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
    config = CONFIG.read_text(encoding="utf-8")
    config = re.sub(r"^docs_dir: .*$", f"docs_dir: {docs}", config, flags=re.M)
    config = config.replace(f"- {HOOKS}", f"- {ROOT / HOOKS}")
    config = config.replace(f"- {THEME_HOOKS}", f"- {ROOT / THEME_HOOKS}")
    config = re.sub(r"^(\s+custom_dir: )(\S+)$", rf"\g<1>{ROOT}/\2", config, flags=re.M)
    path = tmp / "mkdocs.yml"
    path.write_text(config, encoding="utf-8")
    return path
