"""evidence.text: file text checked on load and made inert on a page."""

import pytest

from evidence.text import first_string_problem, inert, plain_word, string_problem


@pytest.mark.parametrize(
    "text, shown",
    [
        ("<script>", "&lt;script&gt;"),
        ("{: onclick=x }", "&#123;: onclick&#61;x &#125;"),
        ("<!-- run: a.py -->", "&lt;&#33;-- run: a.py --&gt;"),
        ('a\n--8<-- "README.md"', "a --8&lt;-- &quot;README.md&quot;"),
        ("[l](javascript:x)", "&#91;l&#93;(javascript:x)"),
        (":smile: a: b", "&#58;smile: a: b"),
        ("`*_~|#^!\\", "&#96;&#42;&#95;&#126;&#124;&#35;&#94;&#33;&#92;"),
        ("&#60; it's", "&amp;&#35;60; it&#x27;s"),
        (
            "NVIDIA H200 (SXM) 3.8.0+cu128 4096×4096",
            "NVIDIA H200 (SXM) 3.8.0+cu128 4096×4096",
        ),
    ],
)
def test_inert_shows_markup_as_its_characters(text, shown):
    assert inert(text) == shown
    assert "<" not in inert(text) and "\n" not in inert(text)


@pytest.mark.parametrize(
    "key, value, why",
    [
        ("name", "NVIDIA \u041d200", "U+041D (cyrillic capital letter en)"),
        ("name", "H200\u202e", "invisible format character U+202E"),
        ("name", "H\u200b200", "invisible format character U+200B"),
        ("torch", "2.1\ud800", "a lone surrogate"),
        ("shape_text", "a\nb", "control or unassigned character U+000A"),
        ("name", "A" * 101, "longer than 100 characters (101)"),
        ("error", "e" * 2001, "longer than 2000 characters (2001)"),
        ("error", "bad\u2066", "invisible format character U+2066"),
        ("error", "nul\x00", "control or unassigned character U+0000"),
    ],
)
def test_a_string_a_page_cannot_print_is_named(key, value, why):
    assert why in string_problem(key, value)


def test_plain_names_and_messages_pass():
    assert string_problem("name", "Intel(R) Xeon(R) CPU @ 2.20GHz") is None
    assert string_problem("shape_text", "B1 H2 S65 D32 causal 3×1031") is None
    assert string_problem("error", "RuntimeError: ‘x’ failed\r\n\tat é") is None
    assert string_problem("error", "\x1b[31merror\x1b[0m") is None  # a colour
    assert string_problem("device_kernels", "void f<" + "int, " * 300 + ">") is None


def test_the_first_problem_names_its_field_and_keys_are_checked():
    data = {"rows": [{"labels": ["ok", "bad\u200b"]}]}
    assert first_string_problem(data)[0] == "rows[0].labels[1]"
    assert first_string_problem({"shape": {"M\u0301": 1}}) == (
        "shape",
        "a key holds U+0301 (combining acute accent): a name may use printable "
        "ASCII only (a look-alike letter could pass for another device)",
    )


@pytest.mark.parametrize("word", ["kernels/residual_add_relu.py", "4096×4096"])
def test_a_plain_word_passes_unchanged(word):
    assert plain_word(word) == word


@pytest.mark.parametrize(
    "word", ["a`b", "<img onerror=x>", "x y", "[l](x)", ""], ids=repr
)
def test_anything_else_shown_as_code_is_refused_in_one_line(word):
    with pytest.raises(ValueError, match="may not be shown as code"):
        plain_word(word)
