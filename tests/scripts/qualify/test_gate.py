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
    function, signature = "residual_add_relu", "residual_add_relu(x, residual)"

    def check():
        gate.static_check(path, gate.parse(path, body), function, signature)

    if expected is None:
        check()
        return
    with pytest.raises(gate.HarnessError, match=expected):
        check()


def test_read_source_refuses_bytes_that_are_not_utf8(tmp_path):
    path = tmp_path / "c.py"
    path.write_bytes(b"x = '\xff'\n")
    with pytest.raises(gate.HarnessError, match="not UTF-8"):
        gate.read_source(path)


KERNEL_MODULE = """
import math
import torch
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass


def _validate(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x is a {type(x).__name__}")


def residual_add_relu(x, residual):
    _validate(x)
    return x


if __name__ == "__main__":
    import json
    from pathlib import Path

    print(json.loads(Path(__file__).read_text()))
"""


def test_an_ordinary_kernel_module_passes_the_gate():
    assert gate.refusals(KERNEL_MODULE) == []


@pytest.mark.parametrize(
    "line, construct",
    [
        ("import os", "import os"),
        ("from importlib import util", "import importlib.util"),
        ("import json\nx = json.dumps", "import json"),
        ("triton.compile = None", "assignment to triton.compile"),
        ("del torch.relu", "assignment to torch.relu"),
        ("f = residual_add_relu.__closure__", ".__closure__"),
        ("v = torch._C", "._C"),
        ("g = getattr(torch, 'relu')", "getattr"),
        ("exec('1')", "exec"),
        ("torch.utils.cpp_extension.load_inline", "torch.utils.cpp_extension"),
        ("torch.set_grad_enabled(False)", "torch.set_grad_enabled"),
        ("class TypeError(Exception): pass", "class TypeError"),
        ("class Both(TypeError, ValueError): pass", "class Both"),
        ("try:\n    pass\nexcept BaseException:\n    pass", "except BaseException"),
        ("p = '/proc/self/maps'", "'/proc'"),
        ("b = __builtins__", "__builtins__"),
    ],
)
def test_each_rule_refuses_with_the_line(line, construct):
    text = "import torch\nimport triton\n" + line + "\n"
    found = gate.refusals(text)
    assert construct in [f["construct"] for f in found], found
    first = [f for f in found if f["construct"] == construct][0]
    assert first["line"] >= 3
    assert gate.refusal_message(first).startswith(f"line {first['line']} uses ")


def test_a_disguised_main_guard_is_checked_like_any_code():
    text = "if __name__ == '__main__' or True:\n    import os\n"
    assert [f["construct"] for f in gate.refusals(text)] == ["import os"]


@pytest.mark.parametrize(
    "source, refused",
    [
        ("import triton\nv = triton.__version__\n", False),
        (
            "try:\n    import triton\nexcept ImportError:\n    triton = None\n"
            "v = triton.__version__\n",
            False,
        ),
        ("import triton\ntriton = object()\nv = triton.__version__\n", True),
        ("import triton\nclass triton:\n    pass\nv = triton.__version__\n", True),
        ("import torch\ndef f(torch):\n    return torch.__version__\n", True),
        ("import triton\nv = triton.__dict__\n", True),
        ("import triton\nv = triton.language.__version__\n", True),
    ],
    ids=["module", "try-import", "rebound", "class", "argument", "dict", "chain"],
)
def test_a_version_is_read_only_from_a_name_bound_to_an_allowed_module(source, refused):
    found = [f for f in gate.refusals(source) if f["construct"].startswith(".__")]
    assert bool(found) is refused, found
