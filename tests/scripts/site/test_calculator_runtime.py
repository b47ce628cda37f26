"""The calculator runtime, run here in CPython as Pyodide runs it in the page."""

from __future__ import annotations

import json
import math

import pytest

from scripts.site.calculator_runtime import call, convert, kind_of, run

AMDAHL = "snippets.lib.amdahl"
TRAFFIC = "snippets.tiled_matmul.traffic"


def test_kind_of_reads_types_and_their_names():
    assert kind_of(int) == "int"
    assert kind_of("float") == "float"
    assert kind_of(bool) == "bool"
    assert kind_of(list) is None
    assert kind_of("int | None") is None


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("int", " 42 ", 42),
        ("int", "4000", 4000),
        ("int", "4,096", 4096),
        ("float", "0.25", 0.25),
        ("float", "1e-3", 0.001),
        ("str", " bf16 ", "bf16"),
        ("bool", "true", True),
        ("bool", "false", False),
    ],
)
def test_convert(kind, text, value):
    assert convert(kind, "x", text) == value


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        ("int", "2.5", "M must be a whole number, got '2.5'"),
        ("int", "", "M: enter a number"),
        ("float", "abc", "M must be a number, got 'abc'"),
        ("bool", "maybe", "M must be true or false, got 'maybe'"),
    ],
)
def test_convert_names_the_field(kind, text, message):
    with pytest.raises(ValueError) as caught:
        convert(kind, "M", text)
    assert str(caught.value) == message


def test_call_converts_by_annotation():
    from snippets.tiled_matmul.traffic import ideal_bytes

    fields = {"M": "2", "N": "3", "K": "4", "itemsize": "2"}
    assert call(ideal_bytes, fields) == ideal_bytes(2, 3, 4, 2)


def test_run_gives_str_of_the_result():
    from snippets.lib.amdahl import overall_speedup

    fields = json.dumps({"kernel_fraction": "0.2", "kernel_speedup": "2"})
    assert run(AMDAHL, "overall_speedup", fields) == [
        True,
        f"{overall_speedup(0.2, 2.0):.4g}×",
    ]
    inf = run(
        AMDAHL, "required_kernel_speedup", '{"kernel_fraction": "0.2", "target": "2"}'
    )
    assert inf == [True, str(math.inf)]


def test_run_shows_the_functions_own_error():
    fields = json.dumps({"kernel_fraction": "1.5", "kernel_speedup": "2"})
    assert run(AMDAHL, "overall_speedup", fields) == [
        False,
        "kernel_fraction must lie in [0, 1], got 1.5",
    ]
    fields = json.dumps({"M": "0", "N": "1", "K": "1", "itemsize": "2"})
    assert run(TRAFFIC, "ideal_bytes", fields) == [
        False,
        "M must be at least 1, got 0",
    ]


def test_run_names_the_exception_that_is_not_a_value_error():
    ok, text = run(AMDAHL, "overall_speedup", '{"kernel_fraction": "0.5"}')
    assert not ok and text.startswith("TypeError: ")


@pytest.mark.parametrize("text", ["2.5", "4e3", "1e30", "1" * 16, "ten"])
def test_an_int_field_refuses_fractions_floats_and_absurd_sizes(text):
    with pytest.raises(ValueError, match="grid must be a whole number"):
        convert("int", "grid", text)


@pytest.mark.parametrize(
    ("func", "value", "shown"),
    [
        ("overall_speedup", 1.1111111111111112, "1.111×"),
        ("required_kernel_speedup", 3.000000000000001, "3×"),
        ("ideal_bytes", 100663296, "100,663,296 bytes (100.7 MB)"),
        ("requested_bytes", 2181038080, "2,181,038,080 bytes (2.2 GB)"),
        ("wave_count", 1.0606060606, "1.061"),
        ("occupancy", "1 block(s) per SM", "1 block(s) per SM"),
    ],
)
def test_a_bare_number_is_rounded_and_given_its_unit(func, value, shown):
    from scripts.site.calculator_runtime import fmt_result

    assert fmt_result(func, value) == shown
