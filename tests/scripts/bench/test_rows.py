"""scripts/bench/rows.py: a row faster than the datasheet is marked, not fatal,
and the fastest probe bounds every row."""

from scripts.bench import rows


def test_a_row_faster_than_the_datasheet_is_marked_not_fatal():
    row = {"median_ms": 0.1, "bytes_moved": 10**9, "flops": 0}
    datasheet = {"bandwidth_bytes_per_s": 4.8e12, "bf16_dense_flop_per_s": 9.9e14}
    (flag,) = rows.datasheet_flags(row, datasheet)
    assert flag.startswith("impossible: 10 TB/s is above the datasheet's 4.8 TB/s")
    assert rows.datasheet_flags({**row, "median_ms": 1.0}, datasheet) == []
    assert rows.datasheet_flags(row, None) == []


def test_the_fastest_probe_is_the_bound():
    ceilings = {
        "copy": {"bandwidth_bytes_per_s": 4.0e12, "best_bandwidth_bytes_per_s": 4.2e12},
        "read": {"bandwidth_bytes_per_s": 4.4e12, "best_bandwidth_bytes_per_s": 4.5e12},
    }
    assert rows.fastest_stream(ceilings) >= 4.4e12
