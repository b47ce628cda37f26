"""kernel_costs.json must equal what the kernels' descriptors say now."""

import json

from snippets.napkin_math_and_the_roofline import kernel_costs


def test_committed_costs_are_fresh():
    # The stamp is a digest of kernels/*.py, the cost script and the table:
    # while it matches, the table was computed from these very sources, so
    # the expensive recomputation (it imports torch) is needed only after
    # one of them changed.
    if kernel_costs.stamp_matches():
        return
    assert kernel_costs.compute_costs() == kernel_costs.committed(), (
        "kernel costs changed: run "
        "`python -m snippets.napkin_math_and_the_roofline.kernel_costs --write`"
    )


def test_write_round_trips(tmp_path, monkeypatch):
    target, stamp = tmp_path / "costs.json", tmp_path / "costs.sha256"
    fake = {"k": {"points": []}}
    monkeypatch.setattr(kernel_costs, "compute_costs", lambda: fake)
    kernel_costs.write(target, stamp)
    assert json.loads(target.read_text()) == fake
    assert stamp.read_text().strip() == kernel_costs.sources_digest(fake)


def test_stamp_changes_with_the_table():
    table = kernel_costs.committed()
    edited = json.loads(json.dumps(table))
    first = next(iter(edited.values()))["points"][0]
    first["bytes"] += 1  # a hand edit to the table must not keep the stamp
    assert kernel_costs.sources_digest(edited) != kernel_costs.sources_digest(table)
