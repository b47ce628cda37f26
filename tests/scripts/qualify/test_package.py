"""The package's map (scripts/qualify/__init__.py) and what the harness
must not know: every module is listed with its job, and no module names a
kernel (those live in the tasks beside the kernels)."""

import re

import scripts.qualify
from evidence import ROOT
from scripts.qualify.task import tasks

PACKAGE = ROOT / "scripts" / "qualify"


def test_the_docstring_lists_every_module_once():
    listed = re.findall(r"^- ``(\w+)``: \S", scripts.qualify.__doc__, re.MULTILINE)
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert sorted(listed) == modules


def test_no_module_names_a_task_function_or_its_kernel_file():
    names = set()
    for task in tasks().values():
        names |= {task.function, task.name, task.kernel_file}
    for path in PACKAGE.glob("*.py"):
        text = path.read_text()
        for name in names:  # as a word: "transposed" is a layout, not a task
            found = re.search(rf"(?<![\w/]){re.escape(name)}(?![\w/])", text)
            assert found is None, f"{path.name} names {name}"
