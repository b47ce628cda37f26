"""snippets/triton_and_gluon/diagram.py: the picture draws the artifact's
partitions and every barrier signal."""

from snippets.triton_and_gluon import diagram


def test_the_roles_come_from_the_artifacts_partitions():
    roles = diagram.roles()
    assert [r for r, _, _ in roles] == ["epilogue", "TMA", "MMA"]
    assert [w for _, w, _ in roles] == [8, 1, 1]


def test_every_signal_joins_two_drawn_roles():
    drawn = {r for r, _, _ in diagram.roles()}
    for source, target, _ in diagram.SIGNALS:
        assert {source, target} <= drawn


def test_the_figure_has_a_box_per_partition_and_an_arrow_per_signal():
    ax = diagram.partitions_figure().axes[0]
    assert len(ax.patches) == len(diagram.roles())
    arrows = [t for t in ax.texts if t.get_text() == "" or hasattr(t, "arrow_patch")]
    assert len([a for a in arrows if getattr(a, "arrow_patch", None)]) == len(
        diagram.SIGNALS
    )
