"""What is checked before a candidate runs (scripts/qualify/gate.py)."""

import pytest

from scripts.qualify import gate


@pytest.mark.parametrize(
    "body, expected",
    [
        ("def residual_add_relu(x, residual):\n    return x\n", None),
        ("from math import sqrt as residual_add_relu\n", None),
        ("residual_add_relu = 3\n", "defines no function"),
        ("def residual_add_relu(x:\n", "syntax error on line 1"),
        ("x = 1\0\n", "null bytes"),
    ],
    ids=["def", "import", "constant", "syntax", "null"],
)
def test_static_check(tmp_path, body, expected):
    path = tmp_path / "c.py"
    path.write_text(body)
    if expected is None:
        gate.static_check(path, body)
        return
    with pytest.raises(gate.HarnessError, match=expected):
        gate.static_check(path, body)


def test_read_source_refuses_bytes_that_are_not_utf8(tmp_path):
    path = tmp_path / "c.py"
    path.write_bytes(b"x = '\xff'\n")
    with pytest.raises(gate.HarnessError, match="not UTF-8"):
        gate.read_source(path)
