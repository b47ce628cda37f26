"""The home page's measured facts come from the committed run record."""

import json

import pytest

from snippets.home import facts


def test_training_time_is_read_from_the_run_record():
    run = json.loads(facts.TINY_LM_RUN.read_text(encoding="utf-8"))
    expected = f"{run['train_wall_seconds']:.0f} s"
    assert facts.facts()["tiny-lm.seconds"] == expected


def test_a_record_without_the_field_names_it(tmp_path):
    bad = tmp_path / "run.json"
    bad.write_text(json.dumps({"steps": 3}))
    with pytest.raises(ValueError, match="train_wall_seconds"):
        facts.tiny_lm_seconds(bad)
