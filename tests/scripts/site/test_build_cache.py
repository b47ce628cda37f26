"""The build cache reuses what an unchanged source computed and never shows
an old value: a test project's snippet, its import and its data file are
edited between two builds, and the hooks find the new values."""

import sys

import pytest

from scripts.site import hooks
from scripts.site.build_cache import BuildCache

VALUE = '''"""A snippet whose values come from another module and a data file."""

import json
from pathlib import Path

from snippets.demo.helper import N

ROOT = Path(__file__).resolve().parents[2]


def facts():
    return {"n": str(N)}


def n_text():
    return f"{N} blocks"


def count_text():
    return str(json.loads((ROOT / "results" / "count.json").read_text())["count"])


def count_in(folder):
    return str(json.loads((Path(folder) / "count.json").read_text())["count"])
'''


def _project_modules():
    return [name for name in sys.modules if name.split(".")[0] == "snippets"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A tiny project under tmp_path whose `snippets` package the hooks
    import instead of the real one (restored afterwards)."""
    (tmp_path / "snippets" / "demo").mkdir(parents=True)
    (tmp_path / "results").mkdir()
    (tmp_path / "snippets" / "__init__.py").write_text("")
    (tmp_path / "snippets" / "demo" / "__init__.py").write_text("")
    (tmp_path / "snippets" / "demo" / "helper.py").write_text("N = 1\n")
    (tmp_path / "snippets" / "demo" / "value.py").write_text(VALUE)
    (tmp_path / "results" / "count.json").write_text('{"count": 7}')
    saved = {name: sys.modules.pop(name) for name in _project_modules()}
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(hooks, "ROOT", tmp_path)
    yield tmp_path
    for name in _project_modules():
        del sys.modules[name]
    sys.modules.update(saved)


def new_build(root, monkeypatch) -> BuildCache:
    """What on_pre_build does: forget imported project code, fresh hashes."""
    for name in _project_modules():
        del sys.modules[name]
    cache = BuildCache(root, root / ".cache")
    monkeypatch.setattr(hooks, "_state", {"timings": {}, "cache": cache})
    return cache


def values():
    path = "snippets/demo/value.py"
    return (
        hooks.run_insert(path, "n_text", "", "page/"),
        hooks.fact_value(path, "n"),
        hooks.run_insert(path, "count_text", "", "page/"),
    )


def test_an_edited_snippet_import_or_data_file_gives_the_new_value(
    project, monkeypatch
):
    cache = new_build(project, monkeypatch)
    assert values() == ("1 blocks", "1", "7")
    assert (cache.hits, cache.misses) == (0, 3)

    cache = new_build(project, monkeypatch)  # a prose edit: nothing changed
    assert values() == ("1 blocks", "1", "7")
    assert (cache.hits, cache.misses) == (3, 0)
    assert "snippets.demo.value" not in sys.modules  # not even imported

    (project / "snippets" / "demo" / "helper.py").write_text("N = 20\n")
    cache = new_build(project, monkeypatch)
    assert values() == ("20 blocks", "20", "7")
    assert cache.misses == 3

    (project / "results" / "count.json").write_text('{"count": 8}')
    new_build(project, monkeypatch)
    assert values()[2] == "8"


def test_a_folder_a_call_names_is_part_of_its_key(project, monkeypatch, tmp_path):
    # A call may point at data outside the project (a test's results folder):
    # changing what is there must recompute, not answer from the cache.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "count.json").write_text('{"count": 1}')
    call = f'"{elsewhere}"'
    new_build(project, monkeypatch)
    assert hooks.run_insert("snippets/demo/value.py", "count_in", call, "p/") == "1"
    (elsewhere / "count.json").write_text('{"count": 2}')
    cache = new_build(project, monkeypatch)
    assert hooks.run_insert("snippets/demo/value.py", "count_in", call, "p/") == "2"
    assert cache.misses == 1


def test_an_error_is_raised_each_build_and_never_stored(project, monkeypatch):
    new_build(project, monkeypatch)
    with pytest.raises(AttributeError, match="no function 'missing'"):
        hooks.run_insert("snippets/demo/value.py", "missing", "", "page/")
    cache = new_build(project, monkeypatch)
    with pytest.raises(AttributeError, match="no function 'missing'"):
        hooks.run_insert("snippets/demo/value.py", "missing", "", "page/")
    assert cache.hits == 0


def test_sources_follow_imports_transitively_and_only_inside_the_project(tmp_path):
    pkg = tmp_path / "snippets" / "lib"
    pkg.mkdir(parents=True)
    (tmp_path / "snippets" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import json\nfrom snippets.lib import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")
    (pkg / "c.py").write_text("import os\n")
    cache = BuildCache(tmp_path, tmp_path / ".cache")
    names = [p.relative_to(tmp_path).as_posix() for p in cache.sources_of(pkg / "a.py")]
    assert names == [
        "snippets/__init__.py",
        "snippets/lib/__init__.py",
        "snippets/lib/a.py",
        "snippets/lib/b.py",
        "snippets/lib/c.py",
    ]


def test_off_computes_every_time(tmp_path):
    cache = BuildCache(tmp_path, tmp_path / ".cache", enabled=False)
    calls = []
    for _ in range(2):
        cache.get("insert", "x.py", "f()", lambda: calls.append(1) or "v")
    assert len(calls) == 2 and not (tmp_path / ".cache").exists()
