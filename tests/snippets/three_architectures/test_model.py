"""snippets/three_architectures/model.py: the pencil model, checked by hand
and against the compiled artifacts."""

from snippets.three_architectures import compiled
from snippets.three_architectures import model as m


def test_stage_bytes_and_stages_by_hand():
    # (128 * 64 + 64 * 256) * 2 bytes = 48 KiB; 227 // 48 = 4, 99 // 48 = 2.
    assert m.HOPPER_TILE.stage_bytes() == 48 * 1024
    assert m.stages_that_fit(m.HOPPER_TILE, "sm_90a") == 4
    assert m.stages_that_fit(m.HOPPER_TILE, "sm_120a") == 2
    assert m.stages_that_fit(m.CONSUMER_TILE, "sm_120a") == 3


def test_operand_reuse_is_mn_over_m_plus_n():
    assert abs(m.HOPPER_TILE.flop_per_byte() - 128 * 256 / 384) < 1e-9
    assert m.CONSUMER_TILE.flop_per_byte() == 64.0


def test_tensor_memory_holds_two_hopper_accumulators_and_none_elsewhere():
    assert m.tensor_memory_accumulators(m.HOPPER_TILE, "sm_100a") == 2
    assert m.tensor_memory_accumulators(m.Tile(128, 512, 64), "sm_100a") == 1
    for target in ("sm_90a", "sm_120a"):
        assert m.tensor_memory_accumulators(m.HOPPER_TILE, target) == 0


def test_instruction_counts_match_the_compiled_code():
    # One K step is one loop trip: the SASS holds the model's count.
    hopper = compiled.loop_matrix_count(compiled.record("matmul", "sm_90a"))
    consumer = compiled.loop_matrix_count(compiled.record("matmul", "sm_120a"))
    assert m.mma_per_k_step(m.HOPPER_TILE, m.WGMMA_SHAPE) == hopper
    assert m.mma_per_k_step(m.CONSUMER_TILE, m.MMA_SYNC_SHAPE) == consumer


def test_the_models_tiles_are_the_compiled_ones():
    for target in compiled.TARGETS:
        tile = m.CONSUMER_TILE if target == "sm_120a" else m.HOPPER_TILE
        c = compiled.record("matmul", target)["constexprs"]
        assert (c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"]) == (tile.m, tile.n, tile.k)


def test_last_wave_fill_by_hand():
    # 64 x 32 = 2048 tiles over 132 SMs: 16 waves, 2048 / 2112 useful.
    assert abs(m.last_wave_fill(m.HOPPER_TILE, 8192, "sm_90a") - 2048 / 2112) < 1e-12


def test_exercise_answers():
    facts = m.facts()
    assert facts["ex1_fp8_stage_kib"] == "24" and facts["ex1_fp8_stages"] == "4"
    assert facts["ex2_wide_accumulators"] == "1" and facts["ex2_columns"] == "512"
    assert facts["traffic_ratio"] == "1.33"
    assert "|" in m.model_table()


def test_attention_accumulators_by_hand():
    # S and O: 128 x (128 + 128) float32 cells over 256 threads; 256 columns.
    assert m.attention_accumulators(128, 128, 128, 8) == (128, 256)
