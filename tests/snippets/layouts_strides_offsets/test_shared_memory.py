from snippets.layouts_strides_offsets import shared_memory as sm


def test_column_reads_conflict_only_without_padding_or_swizzle():
    assert sm.column_read("row-major") == 32
    assert sm.column_read("padded by one word") == 1
    assert sm.column_read("XOR swizzle") == 1
    assert all(sm.row_read(name) == 1 for name in sm.LAYOUTS)


def test_swizzle_is_a_permutation_and_costs_no_words():
    words = {sm.swizzled_word(r, c) for r in range(32) for c in range(32)}
    assert words == set(range(1024))
    assert sm.footprint("padded by one word") == 1024 + 31
    assert "| XOR swizzle | 1 | 1 | 1024 |" in sm.bank_table()
