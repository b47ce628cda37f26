"""Every model names the argument that was wrong."""

import pytest

from snippets.lib.scan_carries import split_blocks, write_ranges
from snippets.lib.softmax_merge import block_states
from snippets.lib.transpose_offsets import Layout, row_major
from snippets.lib.waves import Waves, gemm_work_units


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="sm_count must be at least 1, got 0"):
        Waves(sm_count=0, blocks_per_sm=1, grid_size=10)
    with pytest.raises(TypeError, match="grid_size must be an int, got float"):
        Waves(132, 1, 10.5)
    with pytest.raises(TypeError, match="blocks_per_sm must be an int, got bool"):
        Waves(132, True, 10)
    with pytest.raises(ValueError, match="split_k must be at least 1"):
        gemm_work_units(64, 64, 16, 16, split_k=0)
    with pytest.raises(ValueError, match="differ in rank"):
        Layout((3, 4), (1,))
    with pytest.raises(IndexError, match="index 3 on axis 0 is outside 0..2"):
        row_major(3, 4).offset((3, 0))
    with pytest.raises(ValueError, match="has rank 1, layout has rank 2"):
        row_major(3, 4).offset((1,))
    with pytest.raises(ValueError, match="counts must be non-negative"):
        split_blocks([1, -2], 2)
    with pytest.raises(ValueError, match="3 counts but 2 offsets"):
        write_ranges([1, 2, 3], [0, 1])
    with pytest.raises(ValueError, match="scores must not be empty"):
        block_states([], 2)
