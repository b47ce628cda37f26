"""The practice pages' run box: every solution it runs matches torch."""

from snippets.practice_track import demo


def test_every_demo_solution_matches_torch():
    results = demo.demos()
    assert results and all(results.values()), results
