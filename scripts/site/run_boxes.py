"""The "Run it yourself" box: ``<!-- run: snippets/<folder>/<file>.py -->`` on
a page becomes an admonition with the one command that runs the page's code
and what that command prints.

What it prints comes from one of two places, and a test keeps both honest:

- a module whose imports (followed through the project's own packages) never
  reach torch or Triton is run here, at build time, as ``__main__``, and its
  standard output captured;
- any other module (it runs a kernel, so it imports torch) has its output
  recorded next to it in ``<file>.out.txt`` by
  ``python -m scripts.site.run_boxes snippets/<folder>/<file>.py``; the build
  never imports torch, and ``tests/site/test_snippets.py``, which runs every
  snippet file anyway, checks each record against what the module prints now.

The build fails, naming the page, when the module is missing, has no
``if __name__ == "__main__":`` block, or (importing torch) has no record.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import posixpath
import re
import runpy
import subprocess
import sys
import time
import warnings
from pathlib import Path

from scripts.cli import OneLineParser
from scripts.site.fences import CODE_SPAN_RE, lines_with_fence_state

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("snippets", "kernels", "evidence", "scripts")
HEAVY_PACKAGES = ("torch", "triton")
RUN_RE = re.compile(r"<!--\s*run:\s*(?P<path>snippets/[\w/]+\.py)\s*-->")
RUN_LINE_RE = re.compile(r"^(?P<indent>[ \t]*)" + RUN_RE.pattern + r"\s*$")
RECORD_SUFFIX = ".out.txt"
MAX_LINES = 15
PROG = "python -m scripts.site.run_boxes"


class RunBoxError(Exception):
    """What is wrong with one run placeholder (the hook names the page)."""


def dotted(path: str) -> str:
    """snippets/a/b.py -> snippets.a.b"""
    return path.removesuffix(".py").replace("/", ".")


def command(path: str) -> str:
    """The one command every page shows, the same form everywhere."""
    return f"TRITON_INTERPRET=1 .venv/bin/python -m {dotted(path)}"


def record_path(path: str, root: Path = ROOT) -> Path:
    return root / (path.removesuffix(".py") + RECORD_SUFFIX)


def has_main_block(tree: ast.Module) -> bool:
    """Whether the module has `if __name__ == "__main__":` at top level."""
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            test = node.test
            names = [test.left, *test.comparators]
            if (
                any(isinstance(n, ast.Name) and n.id == "__name__" for n in names)
                and any(
                    isinstance(n, ast.Constant) and n.value == "__main__" for n in names
                )
                and all(isinstance(op, ast.Eq) for op in test.ops)
            ):
                return True
    return False


def _imported_modules(tree: ast.Module, module: str) -> set[str]:
    """Every module an import statement anywhere in the file names."""
    found: set[str] = set()
    package = module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _module_file(module: str, root: Path) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def heavy_imports(path: Path, root: Path = ROOT) -> list[str]:
    """The import chain by which the file reaches torch or Triton (followed
    through the project's packages, any import anywhere in a file counted),
    or [] when it never does."""
    start = ".".join(path.relative_to(root).with_suffix("").parts)
    seen = {start}
    stack = [(path, [start])]
    while stack:
        file, chain = stack.pop()
        tree = ast.parse(file.read_text(encoding="utf-8"))
        for name in sorted(_imported_modules(tree, ".".join(chain[-1:]))):
            top = name.split(".")[0]
            if top in HEAVY_PACKAGES:
                return [*chain, name]
            if top not in PROJECT_PACKAGES or name in seen:
                continue
            seen.add(name)
            target = _module_file(name, root)
            if target is not None:
                stack.append((target, [*chain, name]))
    return []


def check_module(path: str, root: Path = ROOT) -> ast.Module:
    file = root / path
    if not file.is_file():
        raise RunBoxError(f"run box: no such file {path!r}")
    tree = ast.parse(file.read_text(encoding="utf-8"))
    if not has_main_block(tree):
        raise RunBoxError(
            f'run box: {path} has no `if __name__ == "__main__":` block to run'
        )
    return tree


def run_in_process(path: str) -> str:
    """Run a torch-free module as `python -m` would and return its stdout."""
    buffer = io.StringIO()
    argv = sys.argv
    sys.argv = [path]
    try:
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            # The module may already be imported by an insert on the page.
            warnings.filterwarnings("ignore", ".*found in sys.modules", RuntimeWarning)
            runpy.run_module(dotted(path), run_name="__main__", alter_sys=False)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise RunBoxError(f"run box: {path} exited with {exc.code!r}") from exc
    finally:
        sys.argv = argv
    return buffer.getvalue()


def output_for(path: str, root: Path = ROOT, timings: dict | None = None) -> str:
    """What `command(path)` prints: computed here for a torch-free module,
    read from its record otherwise."""
    check_module(path, root)
    chain = heavy_imports(root / path, root)
    if chain:
        record = record_path(path, root)
        if not record.is_file():
            raise RunBoxError(
                f"run box: {path} imports {chain[-1]} (via {' -> '.join(chain)}), "
                f"so the build does not run it; record what it prints with "
                f"`.venv/bin/python -m scripts.site.run_boxes {path}` (writes "
                f"{record.relative_to(root)})"
            )
        text = record.read_text(encoding="utf-8")
    else:
        started = time.perf_counter()
        try:
            text = run_in_process(path)
        except RunBoxError:
            raise
        except Exception as exc:
            raise RunBoxError(
                f"run box: {path} failed: {type(exc).__name__}: {exc}"
            ) from exc
        if timings is not None:
            timings[f"run {path}"] = time.perf_counter() - started
    text = text.rstrip("\n")
    lines = text.split("\n")
    if not text.strip() or len(lines) > MAX_LINES:
        raise RunBoxError(
            f"run box: {path} prints {len(lines) if text.strip() else 0} lines; "
            f"print a short summary (1 to {MAX_LINES} lines)"
        )
    return text


# The page that says once what every box assumes (a clone, `make install`).
HOW_TO_RUN_PAGE = "reference/how-to-run-the-code.md"
MARKDOWN_TABLE_RE = re.compile(r"^\s*\|.*\|\s*$")


def prints_markdown(output: str) -> bool:
    """Whether the output is Markdown for a reader (a table or bold), to be
    shown rendered rather than as raw pipes and asterisks."""
    return "**" in output or any(
        MARKDOWN_TABLE_RE.match(line) for line in output.split("\n")
    )


def rendered_output(output: str) -> list[str]:
    """Markdown output as blocks: each table whole, every other line its own
    paragraph, so line breaks survive."""
    blocks: list[list[str]] = []
    for line in output.split("\n"):
        is_row = bool(MARKDOWN_TABLE_RE.match(line))
        if is_row and blocks and MARKDOWN_TABLE_RE.match(blocks[-1][-1]):
            blocks[-1].append(line)
        elif line.strip():
            blocks.append([line])
    out: list[str] = []
    for block in blocks:
        out.extend([*block, ""])
    return out[:-1]


def render_box(
    path: str, output: str, link: str, indent: str = "", how_to_run: str = ""
) -> str:
    """The standard admonition, indented like the placeholder was: the
    command, then what it prints folded (an exercise below must not be
    answered by an open box above it)."""
    if prints_markdown(output):
        printed = [f"        {line}".rstrip() for line in rendered_output(output)]
    else:
        printed = [
            "        ```text",
            *(f"        {line}".rstrip() for line in output.split("\n")),
            "        ```",
        ]
    how = f" · [How to run the code]({how_to_run})" if how_to_run else ""
    # Every command runs on a CPU (TRITON_INTERPRET=1 runs kernels there).
    body = [
        '!!! example "Run it yourself"',
        "",
        "    Needs a CPU only, no GPU:",
        "",
        "    ```bash",
        f"    {command(path)}",
        "    ```",
        "",
        '    ??? note "What it prints"',
        "",
        *printed,
        "",
        f"    The whole file: [`{path}`]({link}){{ .source-link download }}{how}",
    ]
    return "\n".join(f"{indent}{line}" if line else "" for line in body)


def expand_run_boxes(
    markdown: str, src: str, link_for, timings=None, output=None
) -> str:
    """Replace each `<!-- run: ... -->` line outside code with its box;
    link_for(path) gives the page-relative link to the published file;
    output(path, timings=...) what the file prints (default output_for; the
    hooks pass their cached one)."""
    output = output or output_for
    out = []
    for line, in_code in lines_with_fence_state(markdown):
        match = None if in_code else RUN_LINE_RE.match(line)
        if match is None:
            if not in_code and RUN_RE.search(CODE_SPAN_RE.sub("", line)):
                raise RunBoxError(
                    f"docs/{src}: a run placeholder must stand alone on its line"
                )
            out.append(line)
            continue
        path = match["path"]
        try:
            printed = output(path, timings=timings)
        except RunBoxError as exc:
            raise RunBoxError(f"docs/{src}: {exc}") from exc
        how_to_run = posixpath.relpath(HOW_TO_RUN_PAGE, posixpath.dirname(src) or ".")
        out.append(
            render_box(path, printed, link_for(path), match["indent"], how_to_run)
        )
    return "\n".join(out)


def record(path: str, root: Path = ROOT) -> Path:
    """Run `command(path)` in a fresh interpreter and write what it prints
    next to the module."""
    check_module(path, root)
    result = subprocess.run(
        [sys.executable, "-m", dotted(path)],
        cwd=root,
        env=dict(os.environ, TRITON_INTERPRET="1", MPLBACKEND="Agg"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if result.returncode != 0:
        raise RunBoxError(f"{path} failed:\n{result.stderr[-2000:]}")
    target = record_path(path, root)
    target.write_text(result.stdout, encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog=PROG,
        description="Record what a torch-importing snippet prints, for its page's "
        '"Run it yourself" box.',
    )
    parser.add_argument("paths", nargs="+", help="snippets/<folder>/<file>.py")
    args = parser.parse_args(argv)
    for path in args.paths:
        print(f"wrote {record(path).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
