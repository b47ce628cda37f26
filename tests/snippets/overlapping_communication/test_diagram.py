from snippets.overlapping_communication.diagram import two_timelines


def test_two_timelines_of_two_rows_each():
    ax = two_timelines().axes[0]
    assert len(ax.collections) == 4  # compute and communication, twice
    assert len(ax.get_yticklabels()) == 4
