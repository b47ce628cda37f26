"""scripts/practice/source.py: names, refused imports and mask facts, all
without torch."""

import pytest

from scripts.practice.exercises import BY_NAME
from scripts.practice.source import (
    PracticeError,
    Refused,
    check_source,
    exercise_named,
    mask_facts,
)

HEAD = "def vector_add(x, y, out):\n    pass\n"


@pytest.mark.parametrize("name", ["vector-add", "vector_add", "Vector_Add"])
def test_a_name_is_found_with_hyphens_or_underscores(name):
    assert exercise_named(name).name == "vector-add"


def test_a_misspelt_name_gets_close_names():
    with pytest.raises(PracticeError, match="did you mean rms-norm"):
        exercise_named("rms_nrom")


@pytest.mark.parametrize(
    "line",
    [
        "from practice.vector_add.solution import vector_add",
        "import scripts.practice.exercises",
        "from kernels import softmax",
        "import importlib; importlib.import_module('scripts.practice.grader')",
        "open('../practice/vector_add/solution.py')",
    ],
)
def test_a_module_of_this_repository_is_refused(line, tmp_path):
    with pytest.raises(Refused):
        check_source(BY_NAME["vector-add"], f"{line}\n{HEAD}", tmp_path / "f.py")


@pytest.mark.parametrize(
    "line",
    ["import torch", "import triton.language as tl", "'a sentence. with dots'"],
)
def test_torch_triton_and_sentences_are_not(line, tmp_path):
    check_source(BY_NAME["vector-add"], f"{line}\n{HEAD}", tmp_path / "f.py")


def test_mask_facts_see_a_store_or_load_without_a_mask():
    masked = "tl.store(p, v, mask=m)\ntl.load(p, mask=m)\ntl.store(p, v, m)\n"
    assert mask_facts(masked) == {"store_unmasked": False, "load_unmasked": False}
    assert mask_facts("tl.store(p, v)\n")["store_unmasked"]
    assert mask_facts("tl.load(p)\n")["load_unmasked"]
    assert not mask_facts("tl.load(b, boundary_check=(0,))\n")["load_unmasked"]
