"""Show a kernel function from kernels/<op>.py on a page, read at build time.

Used by the attention lessons (docs/kernels/attention/*.md). The kernel
modules mark no sections for these functions, so the page inserts the
function's current text, found by name with Python's ast module: a kernel
version that changes shows up on the page without an edit, and a function
or a line that disappears fails the build, naming it. The block is titled
"<file> (excerpt)", so the build links it to the whole tested file.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def function_lines(path: str, name: str) -> list[str]:
    """The source lines of top-level function `name` in `path`, its
    decorators included."""
    text = (ROOT / path).read_text(encoding="utf-8")
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return text.splitlines()[first - 1 : node.end_lineno]
    raise KeyError(f"{path} has no top-level function {name!r}")


def excerpt(path: str, name: str, start: str = "", stop: str = "") -> str:
    """A fenced Python block: function `name` of `path`, or the part of it
    from the first line containing `start` to the first line after it
    containing `stop` (both included)."""
    lines = function_lines(path, name)
    begin = 0
    if start:
        begin = _find(lines, start, 0, path, name)
    end = len(lines) - 1
    if stop:
        end = _find(lines, stop, begin, path, name)
    body = lines[begin : end + 1]
    indent = min(len(x) - len(x.lstrip()) for x in body if x.strip())
    body = [x[indent:] for x in body]
    return f'```python title="{path} (excerpt)"\n' + "\n".join(body) + "\n```"


def _find(lines: list[str], needle: str, after: int, path: str, name: str) -> int:
    for i in range(after, len(lines)):
        if needle in lines[i]:
            return i
    raise KeyError(f"{path}:{name} has no line containing {needle!r}")


if __name__ == "__main__":
    print(excerpt("kernels/softmax.py", "softmax_v2_kernel", "Pass 1", "run_max = new"))
