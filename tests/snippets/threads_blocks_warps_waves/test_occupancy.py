"""The lesson's occupancy calculators, table and named values (the
residency model itself is tested in tests/snippets/lib/test_occupancy.py)."""

import pytest

from snippets.threads_blocks_warps_waves import occupancy as occ


def test_calculators_return_strings_and_name_bad_arguments():
    assert occ.occupancy(206, 8, 147456).startswith("1 block(s) per SM, 8 of 64")
    assert "the last holds 8 of 132" in occ.waves(140)
    assert occ.wave_count(264) == 2.0
    for call, name in [
        (lambda: occ.occupancy(0, 4, 0), "registers"),
        (lambda: occ.occupancy(32, 33, 0), "num_warps"),
        (lambda: occ.occupancy(32, 4, 300_000), "shared_bytes"),
        (lambda: occ.waves(0), "grid"),
        (lambda: occ.wave_count(10, 0), "blocks_per_sm"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()


def test_limits_table_and_texts():
    assert "| reserved per block | 1 KB |" in occ.limits_table()
    facts = occ.facts()
    assert facts["limit.warps"] == "64" and facts["limit.sms"] == "132"
