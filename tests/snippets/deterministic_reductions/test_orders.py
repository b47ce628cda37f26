import math
from fractions import Fraction

import pytest

from kernels.reduction.versions import BLOCK_SIZE
from snippets.deterministic_reductions import orders as o


def test_add32_is_correctly_rounded():
    a, b = o.f32(1.0), o.f32(2.0**-24)
    assert o.add32(a, b) == 1.0  # a tie rounds to even
    assert o.add32(a, o.f32(3 * 2.0**-25)) == 1.0 + 2.0**-23
    for x, y in [(0.1, 0.2), (1e7, 0.3), (-3.5, 1e-9)]:
        x, y = o.f32(x), o.f32(y)
        exact = Fraction(x) + Fraction(y)
        got = o.add32(x, y)
        # no float32 neighbour of got is closer to the exact sum
        up = o.f32(math.nextafter(got, math.inf))
        assert abs(Fraction(got) - exact) <= abs(Fraction(up) - exact)


def test_orders_agree_on_exact_data_and_differ_on_real_data():
    ints = [o.f32(float(i)) for i in range(1000)]
    assert o.sequential_sum(ints) == o.tree_sum(ints) == o.two_stage_sum(ints, 64)
    r = o.report()
    assert r["atomic_distinct"] > 1  # order-dependent
    assert r["sequential"] != r["two_stage"]


def test_two_stage_is_a_fixed_function_of_the_input():
    values = o.sample(777)
    assert o.two_stage_sum(values, 32) == o.two_stage_sum(list(values), 32)
    # one block: the same as one tree
    assert o.two_stage_sum(values, 1024) == o.tree_sum(values)
    assert o.two_stage_sum([], 4) == 0.0


def test_atomic_order_in_block_order_is_one_of_the_outcomes():
    values = o.sample(100)
    in_order = o.atomic_sum(values, 10, list(range(10)))
    assert in_order == o.sequential_sum(
        [o.tree_sum(values[i : i + 10]) for i in range(0, 100, 10)]
    )
    with pytest.raises(ValueError, match="permutation"):
        o.atomic_sum(values, 10, [0, 0])


def test_errors_respect_higham_bounds():
    r = o.report()
    assert r["err_sequential"] <= r["bound_sequential"]
    assert r["err_two_stage"] <= r["bound_two_stage"]
    assert r["err_atomic_max"] <= o.error_bound(
        o.sample(o.WORKED["n"]),
        o.depth_two_stage(o.WORKED["n"], o.WORKED["block"]) + 16,
    )
    assert o.gamma(1) == pytest.approx(2.0**-24, rel=1e-6)
    with pytest.raises(ValueError):
        o.gamma(2**24)


def test_depths_and_stages_by_hand():
    assert o.depth_sequential(4096) == 4095
    assert o.depth_two_stage(4096, 256) == 8 + 4
    assert o.depth_two_stage(1, 256) == 0
    assert o.stages(1 << 28, BLOCK_SIZE) == [1 << 28, 1 << 16, 16]
    assert o.stages(5, 4096) == [5]


def test_cost_by_hand():
    cost = o.determinism_cost(1 << 28, 4, 4096)
    assert cost["launches"] == 3
    assert cost["partial_bytes"] == 8 * ((1 << 16) + 16)
    assert cost["share"] < 0.001


def test_texts_and_exercises():
    facts = o.facts()
    for name in ("setup", "atomic-distinct", "cost-share", "cost-stages"):
        assert facts[name]
    a = o.exercise_answer(1 << 20, 1024)
    assert a["launches"] == 2 and a["depth"] == 20
    assert a["bound_ratio"] == pytest.approx(o.gamma((1 << 20) - 1) / o.gamma(20))
    assert facts["exercise.million.launches"] == "2"
    assert facts["exercise.million.depth"] == "20"
    assert facts["exercise.odd.numel"] == "1,000,007"
    assert o.bits(1.0) == "3f800000"


def test_persistent_plan_matches_the_kernel_and_by_hand():
    from kernels.reduction.versions import PERSISTENT_PROGRAMS

    assert o.PROGRAMS == PERSISTENT_PROGRAMS
    big = o.persistent_plan(1 << 28, BLOCK_SIZE)
    # 65,536 whole blocks over 528 programs: 125 loop steps at most; the
    # 528 partials fit one v1 block: main launch + final launch.
    assert big == {"steps": 125, "partials": 528, "launches": 2, "depth": 146}
    ragged = o.persistent_plan(3 * 4096 + 1, 4096)
    assert ragged["launches"] == 3 and ragged["partials"] == 4
    assert o.persistent_plan(100, 4096)["launches"] == 1
    assert o.facts()["v2-depth"] == "146"
