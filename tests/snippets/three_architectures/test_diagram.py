"""snippets/three_architectures/diagram.py: the picture draws, and every
instruction it names is in that target's compiled matmul."""

import re

from snippets.three_architectures import compiled, diagram


def test_every_named_instruction_is_in_the_targets_build():
    for target, steps in diagram.PATHS.items():
        counts = compiled.stems(compiled.record("matmul", target))
        for _, how in steps:
            for stem in re.findall(r"\(([A-Z]+)\)", how):
                assert counts.get(stem, 0) > 0, (target, stem)


def test_the_figure_draws_a_box_per_step():
    fig = diagram.paths_figure()
    (ax,) = fig.axes
    assert len(ax.patches) == sum(len(s) for s in diagram.PATHS.values())
