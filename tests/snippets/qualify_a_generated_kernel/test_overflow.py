"""The int32 offset overflow of the generated kernel as its page states it
(snippets/qualify_a_generated_kernel/overflow.py; the model is tested in
tests/snippets/lib/test_int32_offsets.py)."""

from snippets.qualify_a_generated_kernel import overflow


def test_text():
    assert (
        overflow.fmt_overflow() == "2,147,483,649 elements (8 GiB per float32 tensor)"
    )
