import pytest

from snippets.layouts_strides_offsets import ownership as own


def test_lead_of_buffers_minus_one_is_safe_and_one_more_is_not():
    for buffers in (2, 3, 4):
        assert own.overwritten_early(9, buffers, buffers - 1) == []
        assert own.overwritten_early(9, buffers, buffers) != []
    assert own.schedule(4, 2, 1)[3] == (3, 1, 2)
    with pytest.raises(ValueError, match="buffers"):
        own.schedule(3, 0, 1)


def test_stage_bytes_explain_the_artifact():
    assert own.stage_bytes(128, 256, 64, 2) == 49152
    table = own.buffers_table()
    assert "| `bf16-aligned` | 128 × 256 × 64 | 3 | 147,456 B | 49,152 B | 3 |" in table
    assert "none" in own.ring_table()
