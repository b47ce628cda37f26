"""snippets/warp_specialisation/sass_reading.py: facts read from the
committed attention artifacts."""

from snippets.warp_specialisation import sass_reading as s


def test_hopper_waits_for_every_group_in_the_key_loops():
    assert s.waits(s.OVERLAP, "sm_90a") == ["WARPGROUP.DEPBAR.LE gsb0, 0x0"]
    assert len(s.matrix_loops(s.OVERLAP, "sm_90a")) == 2


def test_register_moves_only_where_warp_specialisation_applies():
    assert s.register_moves(s.SPECIALISED, "sm_90a") == {"dec": 0, "inc": 0}
    moves = s.register_moves(s.SPECIALISED, "sm_100a")
    assert moves["dec"] > 0 and moves["inc"] > 0
    assert s.register_moves(s.OVERLAP, "sm_100a") == {"dec": 0, "inc": 0}


def test_facts_are_strings():
    facts = s.facts()
    assert facts["hopper_ws_same"] == "the same instructions"
    assert all(isinstance(v, str) and v for v in facts.values())
