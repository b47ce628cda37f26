from snippets.when_torch_compile_is_enough import traffic


def test_passes_counted_by_hand():
    assert traffic.passes(fused=False) == 5
    assert traffic.passes(fused=True) == 3
    assert traffic.fmt_ceiling() == "1.67×"
    assert traffic.fmt_passes(True) == "3N"
