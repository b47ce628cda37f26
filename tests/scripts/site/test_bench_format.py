"""The benchmark pages' number formats (scripts/site/bench_format.py)."""

from scripts.site.bench_format import (
    format_bytes,
    format_rate,
    format_spread,
    format_time,
)


def test_durations_never_print_in_scientific_notation():
    assert format_time(0.0043) == "4.3 µs"
    assert format_time(26.3) == "26.3 ms"
    assert format_time(2110.0) == "2.11 s"


def test_a_spread_takes_the_unit_of_its_median_without_an_exponent():
    assert format_spread({"median_ms": 0.5, "p20_ms": 0.4, "p80_ms": 1.2}) == (
        "400–1,200 µs"
    )
    assert format_time(4.2e6) == "4,200 s"


def test_rates_and_sizes_name_their_units():
    assert format_rate(4.8e12, "bandwidth") == "4800 GB/s"
    assert format_rate(9.89e14, "compute") == "989 TFLOP/s"
    assert format_bytes(3 << 20) == "3 MiB"
    assert format_bytes(100) == "100 B"
