"""The page's race rule is the harness's: a program that loads what another
stores, or two programs storing one element, race unless an acquire sees a
release between them; the grader reports it with the CLI's condition, hint
and sentence. Each check shown failing on a kernel that races."""

from __future__ import annotations

import pytest

from scripts.practice.exercises import BY_NAME
from scripts.practice.hints import GENERIC
from scripts.practice_web import blocks, grade, runtime, tensor

KERNELS = """
import triton
import triton.language as tl

@triton.jit
def shared_total(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.load(out_ptr) + tl.sum(x, axis=0))

@triton.jit
def own_partial(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offs), axis=0))

@triton.jit
def same_element(out_ptr):
    tl.store(out_ptr + 1, tl.program_id(0).to(tl.float32))

@triton.jit
def ticket(x_ptr, part_ptr, ticket_ptr, out_ptr, BLOCK: tl.constexpr,
           SEM: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(part_ptr + pid, tl.sum(tl.load(x_ptr + offs), axis=0))
    if tl.atomic_add(ticket_ptr, 1, sem=SEM) == tl.num_programs(0) - 1:
        idx = tl.arange(0, 4)
        tl.store(out_ptr, tl.sum(tl.load(part_ptr + idx), axis=0))
"""


@pytest.fixture(scope="module")
def kernels():
    return runtime.load(KERNELS, "races_kernels.py")


def launch(kernel, grid, *args, **meta):
    blocks.events.clear()
    kernel[grid](*args, **meta)
    return [e[1] for e in blocks.events if e[0] == "race"]


X = tensor.arange(0, 64, dtype=tensor.float32)


def test_a_load_then_store_of_one_total_races_programs_0_and_1(kernels):
    out = tensor.zeros(1)
    (race,) = launch(kernels["shared_total"], (4,), X, out, 64, BLOCK=16)
    assert out.item() == 2016.0  # the programs ran in turn: the value hides it
    assert race["programs"] == [[0, 0, 0], [1, 0, 0]]
    assert race["kinds"] == ["store", "load"]
    assert (race["tensor"], race["element"]) == ("out_ptr", 0)


def test_two_programs_storing_one_element_race(kernels):
    (race,) = launch(kernels["same_element"], (3,), tensor.zeros(4))
    assert race["kinds"] == ["store", "store"] and race["element"] == 1


def test_a_partial_per_program_and_one_program_alone_do_not(kernels):
    assert launch(kernels["own_partial"], (4,), X, tensor.zeros(4), BLOCK=16) == []
    assert launch(kernels["shared_total"], (1,), X, tensor.zeros(1), 64, BLOCK=64) == []


@pytest.mark.parametrize("sem, racy", [("acq_rel", False), ("relaxed", True),
                                       ("release", True)])  # fmt: skip
def test_a_ticket_orders_the_partials_only_if_it_acquires_and_releases(
    kernels, sem, racy
):
    part, out = tensor.zeros(4), tensor.zeros(1)
    count = tensor.zeros(1, dtype=tensor.int32)
    found = launch(kernels["ticket"], (4,), X, part, count, out, BLOCK=16, SEM=sem)
    assert out.item() == 2016.0
    if racy:
        assert found[0]["kinds"] == ["store", "load"]
        assert (found[0]["tensor"], found[0]["element"]) == ("part_ptr", 0)
    else:
        assert found == []


def test_the_grader_reports_the_race_as_the_cli_does():
    exercise = BY_NAME["reduce-sum-two-pass"]
    source = (
        KERNELS
        + """
def reduce_sum(x, out):
    out.zero_()
    shared_total[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
"""
    )
    report = grade.check(exercise, source, "racy.py")
    failed = [o for o in report.outcomes if not o.passed]
    assert failed and {o.hint for o in failed} == {"race"}
    assert failed[0].message.startswith("a race in shared_total: program (1, 0, 0) "
                                        "loads element 0 of out")  # fmt: skip
    assert failed[0].message.endswith(GENERIC["race"])
    assert all(o.passed for o in report.outcomes if o.case == "n=1")  # one program
