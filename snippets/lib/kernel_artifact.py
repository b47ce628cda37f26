"""Facts read from a kernel's compiled artifact, results/artifacts/<op>.sm_90a.json.

Shared by the memory-bound lessons (fusion, reductions, transpose). The
artifact is written by `python -m scripts.artifacts`, which compiles a
kernel for sm_90a without a GPU. Evidence kind: compiled artifact: which
instructions, registers and shared memory the code uses, never its speed.
A missing artifact gives a "not compiled yet" note; a build that lacks a
field raises, naming the file, so the site build fails.
"""

import ast
import json
from hashlib import sha256
from pathlib import Path

from evidence.tables import markdown_table

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("build", "signature", "num_warps", "registers", "shared_bytes")
FIELDS += ("spill_store_bytes", "spill_load_bytes", "sass_opcodes", "ptx_opcodes")


class ArtifactError(ValueError):
    """The artifact exists but does not hold what a page reads."""


def artifact_path(op: str, root: Path = ROOT) -> Path:
    return Path(root) / "results" / "artifacts" / f"{op}.sm_90a.json"


def load(op: str, root: Path = ROOT) -> dict | None:
    """The artifact of kernels/<op>.py, or None when there is none."""
    path = artifact_path(op, root)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    for index, build in enumerate(data.get("builds", [])):
        for field in FIELDS:
            if field not in build:
                raise ArtifactError(f"{path}: builds[{index}] lacks {field!r}")
    return data


def build(op: str, name: str, root: Path = ROOT) -> dict | None:
    """One named build, None when the artifact or the build is absent."""
    data = load(op, root)
    if data is None:
        return None
    for entry in data["builds"]:
        if entry["build"] == name:
            return entry
    return None


# --8<-- [start:opcodes]
def opcodes(build: dict, *prefixes: str) -> dict[str, int]:
    """SASS opcodes that start with any prefix, with their counts in the
    code (instructions written, not instructions executed)."""
    return {
        op: n
        for op, n in sorted(build["sass_opcodes"].items())
        if op.startswith(prefixes)
    }
    # --8<-- [end:opcodes]


def opcodes_text(counts: dict[str, int]) -> str:
    if not counts:
        return "none"
    return ", ".join(f"`{op}` × {n}" for op, n in counts.items())


def staleness_note(op: str, root: Path = ROOT) -> str:
    """A warning when kernels/<op>.py changed after the artifact was built."""
    data = load(op, root)
    if data is None:
        return ""
    source = Path(root) / "kernels" / f"{op}.py"
    if sha256(source.read_bytes()).hexdigest() == data["source_sha256"]:
        return ""
    return (
        f'!!! warning "Stale artifact"\n    `kernels/{op}.py` changed after this '
        "artifact was compiled; the facts below describe the older source. "
        f"Rebuild with `python -m scripts.artifacts {op}`."
    )


def missing_note(op: str) -> str:
    return (
        f'!!! warning "Not compiled yet"\n    No artifact for `{op}`: run '
        f"`python -m scripts.artifacts {op}` to compile it for sm_90a."
    )


def builds_table(op: str, prefixes: tuple[str, ...], root: Path = ROOT) -> str:
    """Markdown: every build of one kernel with the opcodes that matter."""
    data = load(op, root)
    if data is None:
        return missing_note(op)
    rows = []
    for entry in data["builds"]:
        spills = entry["spill_store_bytes"] + entry["spill_load_bytes"]
        rows.append(
            (
                f"`{entry['build']}`",
                opcodes_text(opcodes(entry, *prefixes)),
                entry["registers"],
                f"{entry['shared_bytes']:,} B",
                f"{spills:,} B",
            )
        )
    header = ["build", "memory instructions (SASS)", "registers", "shared", "spills"]
    return markdown_table(header, rows, "llrrr", escape=False)


def source_block(path: str, name: str, root: Path = ROOT) -> str:
    """A fenced excerpt: the function or kernel `name` of a kernel file,
    cut from the file as it is now (read with ast, never imported, so the
    page always shows the tested source)."""
    text = (Path(root) / path).read_text(encoding="utf-8")
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines = text.splitlines()[first - 1 : node.end_lineno]
            body = "\n".join(line for line in lines if "# --8<--" not in line)
            return f'```python title="{path} (excerpt)"\n{body}\n```'
    raise ValueError(f"{path} has no function {name!r}")


if __name__ == "__main__":
    print(builds_table("residual_add_relu", ("LDG", "STG")))
