"""The project page's readings of the committed run, and what they refuse."""

import pytest

from evidence import ResultFileError
from snippets.measure_collectives import project as p


def test_the_committed_run_is_cpu_evidence_with_a_matching_step():
    run = p.committed_run()
    assert run["settings"]["backend"] == "gloo" and "never NVLink" in run["evidence"]
    assert run["data_parallel"]["matches"]
    facts = p.facts()
    assert facts["dp.matches"] == "match" and facts["backend"] == "gloo"


def test_tables_have_a_row_per_fit_and_size():
    run = p.committed_run()
    assert p.fit_table(run).count("\n") == 1 + len(run["fits"])
    assert "held back" in p.held_back_table(run)
    assert p.prediction_table().count("\n") == 1 + len(p.PREDICTION_SIZES)


def test_no_run_and_a_broken_run_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="no collectives run"):
        p.committed_run(tmp_path)
    (tmp_path / "x.json").write_text('{"schema_version": 1}')
    with pytest.raises(ResultFileError, match="x.json"):
        p.committed_run(tmp_path)


def test_a_missing_fit_is_named():
    with pytest.raises(KeyError, match="broadcast at 64 ranks"):
        p.fit(p.committed_run(), "broadcast", 64)


def test_small_numbers_read_as_powers_of_ten():
    assert p.powers_of_ten(2.4e-7) == "2.4 × 10⁻⁷"
    assert p.powers_of_ten(1e-5) == "10⁻⁵"


def test_the_pages_claim_about_large_messages_holds_for_the_committed_run():
    """The page says the time per byte grows above about a megabyte: the
    measured times there exceed the fitted line."""
    run = p.committed_run()
    model = p.model_of(p.fit(run))
    large = [
        m
        for m in run["measurements"]
        if m["collective"] == "all_reduce" and m["world"] == 2 and m["size"] > 2**20
    ]
    assert large and all(m["seconds"] > model.seconds(m["size"]) for m in large)
