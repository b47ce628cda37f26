"""The learner trust level's reading of a file (scripts/qualify/learner_source.py):
what a learner must fix, and imports that would pass someone else's kernel."""

from pathlib import Path

import pytest

from scripts.qualify.learner_source import (
    LearnerError,
    Refused,
    check_source,
    mask_facts,
    read_source,
)

SIGNATURE = "add(x, y)  # returns x + y"


def test_a_missing_or_binary_file_says_what_to_give(tmp_path):
    with pytest.raises(LearnerError, match="no such file"):
        read_source(tmp_path / "none.py")
    binary = tmp_path / "b.py"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(LearnerError, match="not UTF-8"):
        read_source(binary)


def test_a_missing_function_names_what_the_file_defines():
    with pytest.raises(LearnerError, match=r"found: other\); the exercise calls add"):
        check_source("add", SIGNATURE, "def other():\n    pass\n", Path("f.py"))


@pytest.mark.parametrize(
    "line",
    ["from practice.vector_add.solution import add", "import snippets.lib.waves"],
)
def test_an_import_of_someone_elses_kernel_is_refused_with_its_line(line):
    with pytest.raises(Refused) as caught:
        check_source(
            "add", SIGNATURE, f"\n{line}\ndef add(x, y):\n    pass\n", Path("f")
        )
    assert caught.value.line == 2 and caught.value.rule == "import"


def test_mask_facts_tell_a_masked_store_from_a_bare_one():
    masked = "tl.store(p, v, mask=m)\nx = tl.load(p, m)\n"
    assert mask_facts(masked) == {"store_unmasked": False, "load_unmasked": False}
    assert mask_facts("tl.store(p, v)\n")["store_unmasked"] is True
