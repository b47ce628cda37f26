"""The kernel editor's markup and table, from the exercises' data."""

from scripts.site import kernel_editor


def test_the_editor_carries_the_starter_on_one_line():
    markup = kernel_editor.editor("vector-add")
    assert "\n" not in markup and 'data-exercise="vector-add"' in markup
    assert "data-starter=" in markup and "scripts/practice_web/grade.py" in markup
    # The textarea starts empty (the script fills it), so search never
    # indexes the starter as the page's text; Check, Run and the starter.
    assert "></textarea>" in markup
    for action, label, _ in kernel_editor.BUTTONS:
        assert f'data-action="{action}">{label}</button>' in markup


def test_an_exercise_too_big_for_the_page_says_so():
    assert "kernel-editor--local" in kernel_editor.editor("fix-int32-offset-overflow")
    table = kernel_editor.where_it_runs()
    assert "| `fix-int32-offset-overflow` | local grader | 2.0 GiB |" in table
    assert "| `vector-add` | on the page |" in table


WORKER = """
import importlib.abc, json, sys

class Absent(importlib.abc.MetaPathFinder):  # as in Pyodide: none of these
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "triton", "numpy", "safetensors"):
            raise ImportError(f"{name} is not in the browser")

sys.meta_path.insert(0, Absent())
sys.path.insert(0, ".")  # the copied files, never the checkout's
from scripts.practice_web import page
assert page.__file__.startswith(sys.argv[1]), page.__file__
page.install()
for name, source in json.loads(sys.stdin.read()):
    report = json.loads(page.check(name, source))
    hints = sorted({o["hint"] for o in report["outcomes"]})
    print(json.dumps([report["passed"], hints]))
"""


def test_the_worker_grades_from_its_listed_files_alone(tmp_path):
    """Only PYTHON_FILES, with torch, Triton and numpy unimportable, as in
    the browser: a pass, and a race with the CLI's hint."""
    import json
    import subprocess
    import sys

    from scripts.practice.exercises import BY_NAME, ROOT

    for rel in kernel_editor.PYTHON_FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes((ROOT / rel).read_bytes())
    files = [("vector-add", BY_NAME["vector-add"].folder / "solution.py"),
             ("reduce-sum-two-pass", BY_NAME["reduce-sum-two-pass"].folder
              / "wrong_loads_then_stores_out.py")]  # fmt: skip
    given = json.dumps([(name, path.read_text()) for name, path in files])
    done = subprocess.run(
        [sys.executable, "-I", "-c", WORKER, str(tmp_path)], input=given, cwd=tmp_path,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    passed, racy = (json.loads(line) for line in done.stdout.splitlines())
    assert passed == [True, [""]]
    assert racy == [False, ["", "race"]]
