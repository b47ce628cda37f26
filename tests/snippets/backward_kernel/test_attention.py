"""snippets/backward_kernel/attention.py: the two options by hand."""

from dataclasses import replace

from snippets.backward_kernel import attention as a


def test_held_bytes_by_hand():
    s = a.WORKED
    assert a.held_bytes(s, False) == 32 * 4096 * 4096 * 2 == 2**30
    assert a.held_bytes(s, True) == 32 * 4096 * 4


def test_recomputation_costs_one_product_and_saves_p_twice():
    s = replace(a.WORKED, seq=100, heads=3, head_dim=8)
    saved = a.backward_bytes(s, False) - a.backward_bytes(s, True)
    assert saved == 2 * (3 * 100 * 100 * 2 - 3 * 100 * 4)
    assert a.extra_flops(s) == 2 * 100 * 100 * 8 * 3
    assert (
        a.matrix_products(True)["backward"] - a.matrix_products(False)["backward"] == 1
    )


def test_flops_per_byte_is_about_head_dim_over_itemsize():
    # L's few bytes keep it just above D / itemsize.
    assert 64 < a.flops_per_byte_saved(a.WORKED) < 64.1


def test_break_even_by_hand():
    assert round(a.ridge_point()) == 206  # 989.5e12 / 4.8e12
    assert round(a.break_even_head_dim()) == 412


def test_table_and_facts():
    assert a.options_table().count("\n") == 3
    facts = a.facts()
    assert facts["p-held"] == "1.00 GiB" and facts["backward-over-forward"] == "2.5"
    assert facts["p-model"] == "32.00 GiB"


def test_exercise_two_by_hand():
    # D / itemsize = ridge: D = 2 * 206.1 in bf16, 4 * 206.1 in fp32.
    facts = a.facts()
    assert facts["break-even"] == "412" and facts["break-even-fp32"] == "825"
