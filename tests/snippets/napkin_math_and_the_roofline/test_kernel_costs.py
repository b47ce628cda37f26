"""kernel_costs.json must equal what the kernels' descriptors say now."""

from snippets.napkin_math_and_the_roofline import kernel_costs


def test_committed_costs_are_fresh():
    assert kernel_costs.compute_costs() == kernel_costs.committed(), (
        "kernel costs changed: run "
        "`python -m snippets.napkin_math_and_the_roofline.kernel_costs --write`"
    )


def test_write_round_trips(tmp_path, monkeypatch):
    target = tmp_path / "costs.json"
    monkeypatch.setattr(kernel_costs, "compute_costs", lambda: {"k": {"points": []}})
    kernel_costs.write(target)
    assert target.read_text().startswith("{")
