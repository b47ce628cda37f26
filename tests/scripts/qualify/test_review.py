"""The review list and the escaping of untrusted text
(scripts/qualify/review.py)."""

from scripts.qualify import review

HOSTILE = """\
import ctypes, gc
import os.path
from concurrent.futures import ThreadPoolExecutor
import sys


def residual_add_relu(x, residual):
    frame = sys._getframe(1)
    caller = frame.f_back.f_locals
    open("/proc/self/status").read()
    exec("pass")
    return x
"""


def test_each_construct_is_listed_with_its_line():
    found = {(f["line"], f["construct"]) for f in review.suspicious(HOSTILE)}
    assert found >= {
        (1, "import ctypes"),
        (1, "import gc"),
        (2, "import os.path"),
        (3, "import concurrent.futures"),
        (8, "_getframe()"),
        (9, "f_back"),
        (10, "/proc"),
        (11, "exec()"),
    }
    assert (4, "import sys") not in found  # sys alone proves nothing


def test_an_ordinary_kernel_file_has_nothing_to_review():
    text = "import torch\nimport triton\n\ndef residual_add_relu(x, r):\n    return x\n"
    assert review.suspicious(text) == []


def test_the_review_survives_source_that_does_not_parse():
    found = review.suspicious("def broken(:\n    open('/proc/1/mem')\n")
    assert [f["construct"] for f in found] == ["/proc"]


def test_every_listed_construct_is_named_for_the_contract():
    names = review.construct_names()
    assert "ctypes" in names and "_getframe" in names and "/proc" in names
    assert len(names) == len(set(names))


def test_control_characters_are_escaped():
    assert review.escape("a\x1b[2Jb") == "a\\x1b[2Jb"  # terminal escape
    assert review.escape("ok\rfake") == "ok\\x0dfake"  # carriage return
    assert review.escape("x\u202ey") == "x\\u202ey"  # right-to-left override
    assert review.escape("tab\tand é stay") == "tab\tand é stay"


def test_line_numbers_are_the_parsers_even_across_form_feeds():
    # str.splitlines would count the form feed and the vertical tab as line
    # ends and put the text-found constructs two lines below the parser's.
    text = "x = 1  # \f page\ny = 2  # \v tab\nz = '/proc'\nimport ctypes\n"
    found = {(f["line"], f["construct"]) for f in review.suspicious(text)}
    assert found == {(3, "/proc"), (4, "import ctypes")}
    assert review.source_lines(text)[2] == "z = '/proc'"
    assert review.source_lines("a\r\nb\rc") == ["a", "b", "c"]


def test_clip_escapes_and_shortens():
    text = review.clip("a\x1b[31m\nb" + "x" * 300, 20)
    assert "\x1b" not in text and len(text) == 20 and text.endswith("…")
