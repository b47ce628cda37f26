"""Calculator and predict placeholders: markup, the standard-library rule and
the files the build copies. No site build here (tests/site/ builds one)."""

from __future__ import annotations

import html
import re

import pytest
from properdocs.exceptions import PluginError

from scripts.site import calculators
from scripts.site.calculators import (
    CalculatorError,
    Field,
    fields_of,
    fmt_number,
    import_closure,
    in_pyodide_stdlib,
)

AMDAHL = "snippets/lib/amdahl.py"
TRAFFIC = "snippets/tiled_matmul/traffic.py"
PAGE = "kernels/example.md"
URL = "kernels/example/"


@pytest.fixture(autouse=True)
def fresh_state():
    calculators._state["files"].clear()
    calculators._state["pages"].clear()
    yield
    calculators._state["files"].clear()
    calculators._state["pages"].clear()


def test_closure_of_a_snippet_holds_its_project_imports():
    files = import_closure(TRAFFIC)
    assert files == sorted(
        [
            "kernels/__init__.py",
            "kernels/devices.py",
            "snippets/__init__.py",
            "evidence/__init__.py",
            "evidence/tables.py",
            "snippets/tiled_matmul/__init__.py",
            TRAFFIC,
        ]
    )


def test_closure_rejects_a_module_outside_the_standard_library():
    # kernels/matmul/versions.py imports triton and torch.
    with pytest.raises(
        CalculatorError, match=r"kernels/matmul/versions\.py:\d+ imports"
    ):
        import_closure("kernels/matmul/versions.py")


def test_runtime_is_standard_library_only():
    assert import_closure("scripts/site/calculator_runtime.py")


@pytest.mark.parametrize("name", ["json", "math", "dataclasses", "__future__"])
def test_standard_modules_are_in_pyodide(name):
    assert in_pyodide_stdlib(name)


@pytest.mark.parametrize("name", ["numpy", "yaml", "torch"])
def test_other_modules_are_not(name):
    assert not in_pyodide_stdlib(name)


def test_fields_follow_the_signature():
    from snippets.tiled_matmul.traffic import requested_bytes

    first = {"M": 64, "N": 64, "K": 64, "BM": 16, "BN": 16, "itemsize": 2}
    fields = fields_of(requested_bytes, first)
    assert [f.name for f in fields] == ["M", "N", "K", "BM", "BN", "itemsize"]
    assert {f.kind for f in fields} == {"int"}
    assert fields[0] == Field("M", "int", 64)
    # A field with neither a default nor a first value would start empty.
    with pytest.raises(CalculatorError, match="parameter N has no default"):
        fields_of(requested_bytes, {"M": 64})


def test_fields_reject_an_unknown_first_value():
    from snippets.tiled_matmul.traffic import ideal_bytes

    with pytest.raises(CalculatorError, match="no parameter named Q"):
        fields_of(ideal_bytes, {"M": 1, "N": 1, "K": 1, "itemsize": 2, "Q": 1})


def test_fields_reject_an_unannotated_parameter():
    def f(x, y: int = 2):
        return x

    with pytest.raises(CalculatorError, match="parameter x must be annotated"):
        fields_of(f)


def test_calculator_markup_follows_the_contract():
    line = (
        f"<!-- calculator: {AMDAHL}:overall_speedup(kernel_fraction=0.2, "
        "kernel_speedup=2.0) -->"
    )
    out = calculators.expand(f"Text.\n\n{line}\n", PAGE, URL)
    assert f'data-calculator="{AMDAHL}:overall_speedup"' in out
    assert re.search(
        r'<input name="kernel_fraction" type="number" step="any"[^>]*'
        r' value="0.2" data-kind="float">',
        out,
    )
    assert '<input name="kernel_speedup" type="number" step="any"' in out
    # Backticks in a caption's summary render as code, as in the docs.
    assert calculators.code_spans("the `batch` & `context`") == (
        "the <code>batch</code> &amp; <code>context</code>"
    )
    assert "<button" in out and "data-output" in out
    assert "\n" not in out.split("\n\n")[1].rstrip("\n"), "one line of HTML"
    files = re.search(r'data-files="([^"]*)"', out)[1].split()
    assert AMDAHL in files and "evidence/tables.py" in files
    assert PAGE in calculators._state["pages"]
    # The source link is relative to the page's URL.
    assert 'href="../../src/' + AMDAHL + '"' in out


def test_placeholders_in_code_are_left_alone():
    text = f"```\n<!-- calculator: {AMDAHL}:overall_speedup -->\n```\n"
    assert calculators.expand(text, PAGE, URL) == text


def test_a_bad_calculator_fails_the_build_naming_the_page():
    with pytest.raises(
        PluginError,
        match=r"docs/kernels/example\.md: calculator "
        r"kernels/matmul/versions\.py:matmul: .*imports",
    ):
        calculators.expand(
            "<!-- calculator: kernels/matmul/versions.py:matmul -->", PAGE, URL
        )


def test_predict_computes_the_answer_at_build_time():
    from snippets.lib.amdahl import overall_speedup

    line = (
        f'<!-- predict: {AMDAHL}:overall_speedup(0.2, 10.0) "How fast overall?" '
        f"measured={AMDAHL}:speedup_cap(0.2) -->"
    )
    out = calculators.expand(line, PAGE, URL)
    assert f'data-answer="{overall_speedup(0.2, 10.0)!r}"' in out
    assert 'data-measured="1.25"' in out
    assert html.escape("How fast overall?") in out
    assert 'name="estimate"' in out and "data-output" in out
    assert PAGE not in calculators._state["pages"], "a prediction needs no Pyodide"


def test_predict_must_return_a_number():
    line = f'<!-- predict: {AMDAHL}:pct_value(0.2) "Share?" -->'
    with pytest.raises(PluginError, match="must return a number"):
        calculators.expand(line, PAGE, URL)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.2195121951, "1.22"),
        (4096.0, "4,096"),
        (2110.4, "2,110"),
        (0.000123, "0.000123"),
    ],
)
def test_number_text(value, text):
    assert fmt_number(value) == text


def test_site_files_copy_pyodide_only_when_a_page_needs_it(tmp_path):
    assert calculators.site_files() == {}
    calculators._state["pages"].add(PAGE)
    calculators._state["files"].update(import_closure(AMDAHL))
    files = calculators.site_files()
    assert "assets/pyodide/pyodide.asm.wasm" in files
    assert "assets/calculators/py/calculator_runtime.py" in files
    assert f"assets/calculators/py/{AMDAHL}" in files
    assert not any(name.endswith((".map", ".d.ts", ".html")) for name in files)


def test_missing_pyodide_fails_naming_the_page(monkeypatch, tmp_path):
    monkeypatch.setattr(calculators, "PYODIDE_SOURCE", tmp_path)
    with pytest.raises(PluginError, match=r"docs/kernels/example\.md: .*make install"):
        calculators.check_pyodide(PAGE)


def test_each_field_shows_its_label_in_words_not_its_parameter_name():
    field = calculators.Field("bucket_mib", "float", 25.0)
    html = calculators.field_html(field)
    assert '<span class="calculator-name">bucket size (MiB)</span>' in html
    assert 'name="bucket_mib"' in html and 'data-kind="float"' in html
    assert "calculator-kind" not in html


def test_a_parameter_without_a_label_fails_naming_it():
    with pytest.raises(calculators.CalculatorError, match="no_such_parameter"):
        calculators.field_html(calculators.Field("no_such_parameter", "int", 1))
