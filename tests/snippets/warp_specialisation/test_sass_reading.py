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


def test_on_sm_100a_one_warp_queues_the_next_scores_before_the_current_pv():
    # Issue 33's "two QK^T products in flight", from the compiled regions:
    # a product warp that computes no softmax issues two score products
    # before its first P·V, and the exponentials run elsewhere.
    split = s.division_of_work(s.SPECIALISED, "sm_100a")
    assert split["products"] and len(split["products"]) == 1
    assert split["scores_ahead"] == 2
    assert split["exp"] and not set(split["exp"]) & set(split["products"])
    assert split["tma"] and not set(split["tma"]) & set(split["products"])
    # The body repeats the loop for its edge blocks: every copy agrees.
    regions = s.record(s.SPECIALISED, "sm_100a")["partitions"]
    by_name = {}
    for region in regions:
        assert by_name.setdefault(region["name"], region) == region
    # Neither sm_90a build is split at all, and neither plain build.
    for build, target in ((s.SPECIALISED, "sm_90a"), (s.OVERLAP, "sm_100a")):
        assert "partitions" not in s.record(build, target), (build, target)
