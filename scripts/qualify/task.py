"""A task: what the harness is told about the kernel it qualifies, read from
data beside that kernel (a ``TASK`` dict in ``kernels/<op>_task.py`` or
``kernels/<op>/task.py``). The harness names no kernel: ``--task NAME``
picks one, and without it the task is the one whose function the candidate
file defines.
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from evidence import ROOT
from scripts.qualify.gate import HarnessError


@dataclass(frozen=True)
class Task:
    name: str
    function: str  # what a candidate file defines
    args: tuple[str, ...]  # its parameters, in order
    kernel_file: str  # the course's kernel, which must qualify
    descriptor: str  # the module whose DESCRIPTOR holds reference and shapes
    cases: str  # the family of cases (scripts/qualify/cases.py)
    corpus: str  # the folder of its known-broken and known-good candidates
    only_catches: dict[str, str] = field(default_factory=dict)
    # "ulps": within a few ulps of the reference in the output dtype, and
    # bfloat16 rounded to nearest even; "bound": within the descriptor's
    # error_bound of the float64 truth (rounding that grows with n)
    tolerance: str = "ulps"
    # The result's shape and dtype: the inputs' ("input"), or the
    # reference's on the same inputs ("reference": a sum is 0-d)
    output: str = "input"
    # The one input's rank, when the contract refuses any other (None: any)
    rank: int | None = None
    # What a case of the family catches, in this kernel's words, by case name
    catches: dict[str, str] = field(default_factory=dict)
    # The answer on the call's inputs, when it is not the descriptor's
    # reference with them (a causal task: the reference with causal=True)
    reference: Callable | None = None
    # The `shape` the descriptor's error_bound reads, from the inputs (None:
    # {"rows", "cols"} of the first input, the one-input families')
    bound_shape: Callable | None = None

    def answer(self, *inputs):
        """The reference's result on these inputs."""
        return (self.reference or self.descriptor_object.reference)(*inputs)

    @property
    def signature(self) -> str:
        return f"{self.function}({', '.join(self.args)})"

    @functools.cached_property
    def descriptor_object(self):
        return importlib.import_module(self.descriptor).DESCRIPTOR


def _modules() -> list[str]:
    """Every module under kernels/ that may hold a TASK."""
    kernels = ROOT / "kernels"
    found = [f"kernels.{p.stem}" for p in sorted(kernels.glob("*_task.py"))]
    found += [
        f"kernels.{p.parent.name}.task" for p in sorted(kernels.glob("*/task.py"))
    ]
    return found


@functools.cache
def tasks() -> dict[str, Task]:
    """Every task, by name."""
    found = {}
    for module in _modules():
        data = dict(importlib.import_module(module).TASK)
        data["args"] = tuple(data["args"])
        task = Task(**data)
        found[task.name] = task
    return found


def find(name: str) -> Task:
    """The task called `name`; HarnessError naming the known ones."""
    known = tasks()
    if name not in known:
        raise HarnessError(
            f"--task: no task {name!r}; known: {', '.join(sorted(known))}"
        )
    return known[name]


def for_source(text: str) -> Task:
    """The one task whose function the source defines at its top level."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    matching = [t for t in tasks().values() if t.function in _bound_names(tree)]
    if len(matching) == 1:
        return matching[0]
    known = "; ".join(sorted(t.signature for t in tasks().values()))
    if not matching:
        raise HarnessError(f"the file defines no function of any task ({known})")
    raise HarnessError(
        f"the file defines the functions of {len(matching)} tasks: name one "
        f"with --task NAME ({known})"
    )


def _bound_names(tree: ast.Module) -> set[str]:
    """Names the module binds at its top level (a def, an assignment, an
    import), so a file that binds the name to a non-function still picks
    its task and is then told it defines no function."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name.split(".")[-1]) for a in node.names}
    return names


def of_family(cases: str) -> Task:
    """The one task whose cases are this family's (the tests' default)."""
    (task,) = [t for t in tasks().values() if t.cases == cases]
    return task


def bench_shapes(task: Task) -> tuple[list[tuple[int, int]], str]:
    """Three shapes from the task's descriptor: the smallest of its
    ``full`` profile, its ``quick`` shape, and its awkward (non-power-of-
    two) one. Returns (shapes, the file they come from)."""
    descriptor = task.descriptor_object
    if any(set(s) != {"rows", "cols"} for s in descriptor.shapes["full"]):
        return [], task.kernel_file  # a kernel not timed at (rows, cols)
    full = [(s["rows"], s["cols"]) for s in descriptor.shapes["full"]]
    quick = descriptor.shapes["quick"][0]

    def awkward(shape):
        return any(d & (d - 1) for d in shape)

    smallest = min(full, key=lambda s: s[0] * s[1])
    odd = next((s for s in full if awkward(s)), full[-1])
    return [smallest, (quick["rows"], quick["cols"]), odd], task.kernel_file


def bench_dtype(device: str, task: Task) -> torch.dtype:
    descriptor = task.descriptor_object
    name = descriptor.dtype_cpu if device == "cpu" else descriptor.dtype_cuda
    return getattr(torch, name)
