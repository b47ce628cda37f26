import pytest

from snippets.goodput_and_admission import shedding


def test_shedding_keeps_goodput_past_capacity(monkeypatch):
    monkeypatch.setattr(shedding, "REQUESTS", 200)
    t = shedding.step_time()
    capacity = shedding.measured.newest()["settings"]["capacity_probe_rps"]
    plain = shedding.goodput(1.5 * capacity, t, None)
    shed = shedding.goodput(1.5 * capacity, t, 2)
    assert plain["refused"] == 0 and shed["refused"] > 0.2
    assert shed["goodput_rps"] > 3 * plain["goodput_rps"]
    light = shedding.goodput(0.3 * capacity, t, None)
    assert light["attainment_served"] > 0.9


def test_a_bad_queue_limit_names_itself():
    with pytest.raises(ValueError, match="max_waiting"):
        shedding.SheddingScheduler(
            max_waiting=0, max_batch=1, block_size=4, num_blocks=4
        )


def test_no_answer_in_the_run_box():
    from pathlib import Path

    main = Path(shedding.__file__).read_text().split('if __name__ == "__main__":')[1]
    assert "ex1" not in main and "ex2" not in main and "EX2" not in main
