"""The goals' words (the table itself: tests/scripts/site/test_bench_pages.py)."""

from scripts.site import bench_goals


def test_a_target_is_worded_with_its_shape_and_note():
    target = {"metric": "R", "at_least": 0.8, "shape": {"M": 8, "N": 8, "K": 8}}
    assert bench_goals.target_label(target) == "R ≥ 0.80 at 8³"
    shaped = {"metric": "F_bw", "at_least": 0.85, "shape": {"rows": 2, "cols": 3}}
    assert bench_goals.target_label(shaped) == "F_bw ≥ 0.85 at 2×3"
    eager = {"metric": "speedup_vs_eager", "at_least": 1.4, "note": "(fused)"}
    assert bench_goals.target_label(eager) == "≥ 1.4× eager (fused)"
