"""snippets/warp_specialisation/diagram.py: the drawn timeline follows the model."""

from snippets.warp_specialisation import diagram, pipeline


def test_phases_end_where_the_model_ends():
    step = pipeline.attention_step()
    for groups in (1, 2):
        ends = [end for _, _, _, end in diagram.phases(step, groups, 4)]
        assert max(ends) == pipeline.ping_pong(4, step, groups)


def test_the_tensor_cores_never_run_two_matrix_phases_at_once():
    step = pipeline.attention_step()
    spans = sorted(
        (s, e) for _, ph, s, e in diagram.phases(step, 2, 5) if ph == "matrix"
    )
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))


def test_figure_draws_every_phase():
    ax = diagram.timeline_figure(blocks=3).axes[0]
    assert len(ax.patches) == 2 * 3 * (1 + 2)
