"""Which kernel language leaves which decision to you
(docs/kernels/below-triton/which-language.md). Evidence kind: a reading of
each language's documentation, as data, and statement counts of this
project's own kernels; no speed, ours or anyone's (published figures stay in
``evidence/published.py``).

The page says in words what each language is; this file holds only the
grid of decisions (who makes each one) and the code-size counts, so the
exercises can be answered by a function and checked by a test.
"""

from __future__ import annotations

import ast
from pathlib import Path

from evidence.tables import markdown_table

ROOT = Path(__file__).resolve().parents[2]

# --8<-- [start:grid]
#: Highest level first. "you": the kernel's author writes it; "compiler",
#: "autotuner", "library": someone else does, and you cannot say otherwise.
LANGUAGES = (
    "Helion",
    "Triton",
    "Gluon",
    "ThunderKittens",
    "CuTe DSL",
    "CUTLASS C++",
    "CUDA C++ and PTX",
)
PYTHON = {"Helion", "Triton", "Gluon", "CuTe DSL"}
GRID = {
    "tile sizes, grid": ("autotuner", "you", "you", "you", "you", "you", "you"),
    "indexing and masks": ("compiler", "you", "you", "library", "you", "you", "you"),
    "register layout of a tile": (
        "compiler",
        "compiler",
        "you",
        "library",
        "you",
        "you",
        "you",
    ),
    "shared layout, swizzle": (
        "compiler",
        "compiler",
        "you",
        "library",
        "you",
        "you",
        "you",
    ),
    "pipeline: slots, barriers, waits": (
        "compiler",
        "compiler",
        "you",
        "library",
        "you",
        "you",
        "you",
    ),
    "warp roles": ("autotuner", "compiler", "you", "you", "you", "you", "you"),
    "registers per role": ("compiler", "compiler", "you", "you", "you", "you", "you"),
    "the exact instruction": (
        "compiler",
        "compiler",
        "compiler",
        "library",
        "you",
        "you",
        "you",
    ),
}
# --8<-- [end:grid]


def who(decision: str, language: str) -> str:
    if decision not in GRID:
        raise ValueError(f"unknown decision {decision!r}; known: {', '.join(GRID)}")
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    return GRID[decision][LANGUAGES.index(language)]


def grid_table() -> str:
    """The decision grid as a table, one column per language."""
    rows = [[decision, *cells] for decision, cells in GRID.items()]
    return markdown_table(["decision", *LANGUAGES], rows)


# --8<-- [start:highest-level]
def highest_level(needs: tuple[str, ...], python: bool = False) -> str:
    """The highest-level language that leaves every decision in ``needs``
    to you (and is written in Python, if ``python``)."""
    for language in LANGUAGES:
        if python and language not in PYTHON:
            continue
        if all(who(decision, language) == "you" for decision in needs):
            return language
    raise ValueError(f"no language leaves all of {needs} to you")
    # --8<-- [end:highest-level]


#: The functions each kernel's source is made of (kernels/matmul/).
KERNEL_PARTS = {
    "Triton, version 2": ("versions.py", ("matmul_v2_kernel",)),
    "Gluon, sm_90a": (
        "gluon.py",
        ("wgmma_layout", "tile_origin", "_sm90_load", "matmul_gluon_sm90_kernel"),
    ),
    "Gluon, sm_100a": (
        "gluon.py",
        (
            "tmem_acc_layouts",
            "tile_origin",
            "_sm100_loader",
            "_sm100_mma",
            "_sm100_epilogue",
            "matmul_gluon_sm100_kernel",
        ),
    ),
}


# --8<-- [start:lines]
def kernel_lines(name: str) -> int:
    """Statements of a kernel's device code, over every function it is made
    of (docstrings left out): a count a formatter cannot change."""
    file, functions = KERNEL_PARTS[name]
    tree = ast.parse((ROOT / "kernels" / "matmul" / file).read_text(encoding="utf-8"))
    found = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    missing = [f for f in functions if f not in found]
    if missing:
        raise ValueError(f"kernels/matmul/{file} has no {missing}")
    count = 0
    for function in functions:
        for node in ast.walk(found[function]):
            docstring = isinstance(node, ast.Expr) and isinstance(
                getattr(node, "value", None), ast.Constant
            )
            if (
                isinstance(node, ast.stmt)
                and node is not found[function]
                and not docstring
            ):
                count += 1
    return count
    # --8<-- [end:lines]


def lines_table() -> str:
    rows = [[name, str(kernel_lines(name))] for name in KERNEL_PARTS]
    return markdown_table(["kernel", "statements of device code"], rows, "lr")


def facts() -> dict[str, str]:
    triton = kernel_lines("Triton, version 2")
    both = kernel_lines("Gluon, sm_90a") + kernel_lines("Gluon, sm_100a")
    return {
        "triton_lines": str(triton),
        "gluon90_lines": str(kernel_lines("Gluon, sm_90a")),
        "gluon100_lines": str(kernel_lines("Gluon, sm_100a")),
        "ex1.answer": highest_level(
            ("shared layout, swizzle", "warp roles"), python=True
        ),
        "ex2.answer": highest_level(("the exact instruction",), python=True),
        "ex3.ratio": f"{kernel_lines('Gluon, sm_100a') / triton:.1f}",
        "ex3.both": str(both),
    }


if __name__ == "__main__":
    for name in KERNEL_PARTS:
        print(f"{name:18} {kernel_lines(name):4} statements")
    print(f"{len(GRID)} decisions, {len(LANGUAGES)} languages in the grid")
