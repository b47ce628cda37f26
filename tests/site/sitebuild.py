"""Build the site (or a variant of it) from a test. Imported by the site tests
and their conftest fixtures; not a test module itself."""

from __future__ import annotations

import functools
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
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
#: Third-party packages every build imports, loaded once per test session by
#: a fork server that each variant build starts from: the Jupyter plugin and
#: matplotlib alone were about half of a one-page build. Project modules are
#: never preloaded (a test may change one before it builds), and a build with
#: the import report still runs in a fresh interpreter.
PRELOAD = (
    "properdocs.__main__",
    "properdocs.commands.build",
    "mkdocs_jupyter.plugin",
    "material.plugins.search.plugin",
    "matplotlib.pyplot",
)
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
    arguments = ["build", "--strict", "-q", "-f", str(config_file), "-d", str(site_dir)]
    environment = dict(
        os.environ,
        **QUIET,
        # The import report must see every page module imported: no cache.
        **({"SITE_BUILD_CACHE": "off"} if importtime else {}),
        **(env or {}),
    )
    if not importtime:
        return _build_forked(arguments, environment)
    return subprocess.run(
        [*command, *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=BUILD_HANG_S,
    )


@functools.cache
def _fork_server():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return context


def _build_forked(
    arguments: list[str], environment: dict
) -> subprocess.CompletedProcess:
    """`properdocs ARGUMENTS` in a child of the fork server, as `python -m
    properdocs` would run it from the repository root."""
    with tempfile.TemporaryDirectory(prefix="site-build-") as folder:
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"
        child = _fork_server().Process(
            target=_build_in_child,
            args=(arguments, environment, str(out), str(err)),
        )
        child.start()
        child.join(BUILD_HANG_S)
        if child.is_alive():
            child.kill()
            child.join()
            raise subprocess.TimeoutExpired(arguments, BUILD_HANG_S)
        return subprocess.CompletedProcess(
            ["properdocs", *arguments],
            child.exitcode,
            out.read_text(errors="replace") if out.exists() else "",
            err.read_text(errors="replace") if err.exists() else "",
        )


def _build_in_child(arguments, environment, out: str, err: str) -> None:
    os.chdir(ROOT)
    os.environ.clear()
    os.environ.update(environment)
    sys.path.insert(0, str(ROOT))  # what `python -m` run from ROOT puts first
    for descriptor, path in ((1, out), (2, err)):
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(handle, descriptor)
        os.close(handle)
    from properdocs.__main__ import cli

    try:
        cli.main(args=arguments, prog_name="properdocs")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    raise SystemExit(code)  # multiprocessing makes it the exit code


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
