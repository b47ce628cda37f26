"""The race detector (scripts/qualify/races.py) on small launches: the
races it must report (a load-then-store on out[0], a chained carry without
a wait, a wait with relaxed atomics) and the orderings it must accept (a
wait on an acquire, the last-ticket sum), and the check's words."""

import pytest
import torch
import triton
import triton.language as tl

from scripts.qualify import judge, races


@triton.jit
def shared_total_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    part = tl.sum(tl.load(x_ptr + offs), axis=0)
    tl.store(out_ptr, tl.load(out_ptr) + part)  # load, add, store: a race


@triton.jit
def last_ticket_kernel(x_ptr, parts_ptr, ticket_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(parts_ptr + pid, tl.sum(tl.load(x_ptr + offs), axis=0))
    if tl.atomic_add(ticket_ptr, 1) == tl.num_programs(0) - 1:  # acq_rel
        every = tl.arange(0, 4)
        tl.store(out_ptr, tl.sum(tl.load(parts_ptr + every), axis=0))


@triton.jit
def chained_kernel(x_ptr, out_ptr, carry_ptr, flag_ptr, BLOCK: tl.constexpr,
                   WAIT: tl.constexpr, SEM: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    carry = 0.0
    if pid > 0:
        if WAIT:
            while tl.atomic_add(flag_ptr + pid - 1, 0, sem=SEM) == 0:
                pass
        carry = tl.load(carry_ptr + pid - 1)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0) + carry)
    tl.store(carry_ptr + pid, carry + tl.sum(x, axis=0))
    if WAIT:
        tl.atomic_xchg(flag_ptr + pid, 1, sem="release")


X = torch.arange(64, dtype=torch.float32)


def test_a_load_then_store_on_out_0_is_a_race_of_programs_0_and_1():
    out = torch.zeros(1)
    with races.watching() as watch:
        shared_total_kernel[(4,)](X, out, BLOCK=16)
    assert out.item() == X.sum().item()  # the interpreter's order hides it
    race = watch.found
    assert race.programs == ((0, 0, 0), (1, 0, 0))
    assert race.kinds == ("store", "load")
    assert (race.tensor, race.element) == ("out_ptr", 0)
    words = judge.race_problem(race.to_dict())
    assert "program (1, 0, 0) loads element 0 of out_ptr" in words
    assert "program (0, 0, 0) stores" in words


@pytest.mark.parametrize(
    "wait, sem, racy",
    [(False, "acquire", True), (True, "relaxed", True), (True, "acquire", False)],
    ids=["no-wait", "relaxed-wait", "acquire-wait"],
)
def test_a_chained_carry_races_unless_an_acquire_waits_for_it(wait, sem, racy):
    out, carry = torch.empty(64), torch.empty(4)
    flags = torch.zeros(4, dtype=torch.int32)
    with races.watching() as watch:
        chained_kernel[(4,)](X, out, carry, flags, BLOCK=16, WAIT=wait, SEM=sem)
    assert torch.equal(out, X.cumsum(0))
    if racy:
        assert watch.found.kinds == ("store", "load")
        assert (watch.found.tensor, watch.found.element) == ("carry_ptr", 0)
    else:
        assert watch.found is None


def test_the_last_ticket_sum_is_ordered_by_its_atomic():
    parts, out = torch.empty(4), torch.empty(1)
    ticket = torch.zeros(1, dtype=torch.int32)
    with races.watching() as watch:
        last_ticket_kernel[(4,)](X, parts, ticket, out, BLOCK=16)
    assert out.item() == X.sum().item()
    assert watch.found is None


def test_launches_are_judged_apart():
    # Two launches of one program each touch out[0]: kernels on one stream
    # are ordered, so there is no race between them.
    out = torch.zeros(1)
    with races.watching() as watch:
        shared_total_kernel[(1,)](X, out, BLOCK=16)
        shared_total_kernel[(1,)](X, out, BLOCK=16)
    assert watch.found is None


@triton.jit
def masked_off_kernel(x_ptr, out_ptr, rows, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    # Masked off in every lane (a block mask & a scalar: int32 in the
    # interpreter), at the row of out that program 1 stores.
    tl.load(x_ptr + (rows + 1 - pid) * BLOCK + offs, mask=(offs < BLOCK) & (pid > 9))
    tl.store(out_ptr + pid * BLOCK + offs, tl.load(x_ptr + pid * BLOCK + offs))


def test_lanes_a_mask_turns_off_are_not_accesses():
    buffer = torch.zeros(128)
    x, out = buffer[:64], buffer[64:]  # out starts where x ends
    with races.watching() as watch:
        masked_off_kernel[(4,)](x, out, 4, BLOCK=16)
    assert watch.found is None
