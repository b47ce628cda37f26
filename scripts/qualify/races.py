"""Races between the programs of one launch, from the accesses the Triton
interpreter hands its builder (``TRITON_INTERPRET=1``).

A race is two accesses to the same address by two programs of one launch,
at least one a plain store (not an atomic), that nothing orders: a program
that loads or stores an address another program stores. Atomics order
programs as on a GPU: an acquire (or acq_rel) atomic on an address sees
everything its program's release (or acq_rel) atomics on that address
published before it, and the clocks carry that across programs (vector
clocks, replayed in the order the interpreter ran the programs). So
programs that store partials and draw an acq_rel ticket, the last of them
combining the partials, do not race, and a program that loads the carry
its predecessor stores, without waiting on a flag, does.

The interpreter runs the programs of a launch one after another, so a race
never changes a value there; this is how a CPU run still sees it. What it
judges is the one order the interpreter ran: a program that skips a wait
because the flag is already set (its predecessor ran to the end first) is
ordered here, and a race on addresses no case reaches is not seen. Accesses
are compared by their first byte (two accesses of different widths that
overlap without starting at the same byte are not compared).

:func:`watching` records while a block runs and yields a :class:`Watch`;
its ``found`` is the first race, or None. Both trust levels use it: the
qualification's worker (``worker.py``) and the practice grader's child.
"""

from __future__ import annotations

import contextlib
import inspect
from dataclasses import dataclass

import numpy as np

LOAD, STORE, ATOMIC = 0, 1, 2
KIND_WORDS = {LOAD: "load", STORE: "store", ATOMIC: "atomic"}
#: Addresses with a conflict examined for an ordering, at most, per launch.
MAX_ADDRESSES = 4096
#: Sync events times programs compared, at most, before the replay gives up
#: (a launch past it is reported as not analysed, never as a race).
MAX_REPLAY = 50_000_000


@dataclass(frozen=True)
class Race:
    kernel: str
    programs: tuple[tuple[int, ...], tuple[int, ...]]  # earlier, later
    kinds: tuple[str, str]  # "load", "store" or "atomic", in that order
    address: int
    tensor: str  # the kernel's argument holding the address, or ""
    element: int  # its index in that argument's elements (-1: none)

    def to_dict(self) -> dict:
        return {
            "kernel": self.kernel[:200],
            "programs": [list(p) for p in self.programs],
            "kinds": list(self.kinds),
            "tensor": self.tensor[:200],
            "element": self.element,
        }


class Launch:
    """What one launch did: its chunks of accesses and its sync events."""

    def __init__(self, kernel: str, spans: dict):
        self.kernel = kernel
        self.spans = spans  # argument name -> (start, end, element bytes)
        self.seq = 0
        self.chunks: list[tuple[int, int, int, np.ndarray]] = []
        self.syncs: list[tuple[int, int, np.ndarray, bool, bool]] = []
        self.programs: dict[int, tuple[int, ...]] = {}

    def note(self, kind, program, addresses, acquire=False, release=False):
        linear = _linear(program)
        self.programs.setdefault(linear, program)
        self.seq += 1
        if addresses.size:
            self.chunks.append((self.seq, linear, kind, addresses))
        if (acquire or release) and addresses.size:
            self.syncs.append((self.seq, linear, addresses, acquire, release))

    def named(self, address: int) -> tuple[str, int]:
        for name, (start, end, size) in self.spans.items():
            if start <= address < end:
                return name, (address - start) // size
        return "", -1


def _linear(program: tuple[int, ...]) -> int:
    x, y, z = program
    return (z << 42) | (y << 21) | x


def conflicts(launch: Launch) -> np.ndarray:
    """Addresses a plain store of one program and an access of another
    both reach, in increasing order."""
    stores = [(p, a) for _, p, k, a in launch.chunks if k == STORE]
    if not stores:
        return np.empty(0, dtype=np.int64)
    addresses, owners = _flat(stores)
    if addresses.size > 1 and not bool((addresses[1:] >= addresses[:-1]).all()):
        order = np.argsort(addresses)  # stores in address order need none
        addresses, owners = addresses[order], owners[order]
    first = np.flatnonzero(np.r_[True, addresses[1:] != addresses[:-1]])
    unique = addresses[first]
    low = np.minimum.reduceat(owners, first)
    high = np.maximum.reduceat(owners, first)
    found = [unique[low != high]]  # stored by two programs
    others = [(p, a) for _, p, k, a in launch.chunks if k != STORE]
    if others:
        reached, programs = _flat(others)
        near = (reached >= unique[0]) & (reached <= unique[-1])
        reached, programs = reached[near], programs[near]
        at = np.searchsorted(unique, reached)
        hit = unique[at] == reached
        other = hit & ((low[at] != programs) | (high[at] != programs))
        found.append(reached[other])
    return np.unique(np.concatenate(found))


def _flat(chunks: list) -> tuple[np.ndarray, np.ndarray]:
    """(addresses, the program of each) of chunks ``(program, addresses)``."""
    addresses = np.concatenate([a for _, a in chunks])
    sizes = np.fromiter((a.size for _, a in chunks), np.int64, len(chunks))
    programs = np.fromiter((p for p, _ in chunks), np.int64, len(chunks))
    return addresses, np.repeat(programs, sizes)


def replay(launch: Launch, needed: set[int], columns: dict[int, int]):
    """(own clock, vector clock) of each chunk in `needed`, by sequence
    number: the order the atomics' acquires and releases set up."""
    width = len(columns)
    if len(launch.syncs) * max(width, 1) > MAX_REPLAY:
        return None
    own: dict[int, int] = {}
    clocks: dict[int, np.ndarray] = {}
    at_address: dict[int, np.ndarray] = {}
    zero = np.zeros(width, dtype=np.int64)
    events = sorted([(s, 0, p, a, q, r) for s, p, a, q, r in launch.syncs]
                    + [(s, 1, p, None, 0, 0) for s, p, _, _ in launch.chunks
                       if s in needed])  # fmt: skip
    seen: dict[int, tuple[int, np.ndarray]] = {}
    for seq, is_access, program, addresses, acquire, release in events:
        mine = clocks.get(program, zero)
        if is_access:
            seen[seq] = (own.get(program, 1), mine)
            continue
        for address in np.unique(addresses).tolist():
            if acquire and address in at_address:
                mine = np.maximum(mine, at_address[address])
            if release:
                published = mine.copy()
                if program in columns:
                    published[columns[program]] = own.get(program, 1)
                known = at_address.get(address)
                at_address[address] = (
                    published if known is None else np.maximum(known, published)
                )
        clocks[program] = mine
        if release:
            own[program] = own.get(program, 1) + 1
    return seen


def first_race(launch: Launch) -> Race | None:
    """The first race of a launch, in address order, or None."""
    addresses = conflicts(launch)[:MAX_ADDRESSES]
    if not addresses.size:
        return None
    events = []  # (address, seq, program, kind) of every access to those
    for seq, program, kind, reached in launch.chunks:
        hit = np.unique(reached[np.isin(reached, addresses)])
        events += [(int(a), seq, program, kind) for a in hit.tolist()]
    events.sort()
    ordered, columns = None, {}
    if launch.syncs:
        programs = sorted({e[2] for e in events})
        columns = {p: i for i, p in enumerate(programs)}
        ordered = replay(launch, {e[1] for e in events}, columns)
        if ordered is None:
            return None  # too large to replay: not analysed
    by_address: dict[int, list] = {}
    for event in events:
        by_address.setdefault(event[0], []).append(event[1:])
    for address in sorted(by_address):
        pair = unordered_pair(by_address[address], ordered, columns)
        if pair is not None:
            (_, p1, k1), (_, p2, k2) = pair
            tensor, element = launch.named(address)
            return Race(
                launch.kernel,
                (launch.programs[p1], launch.programs[p2]),
                (KIND_WORDS[k1], KIND_WORDS[k2]),
                address, tensor, int(element),
            )  # fmt: skip
    return None


def unordered_pair(accesses: list, ordered, columns: dict):
    """The first two accesses (seq, program, kind), in the order they ran,
    of two programs, one a plain store, that nothing orders; or None."""
    for j, (seq2, p2, k2) in enumerate(accesses):
        for seq1, p1, k1 in accesses[:j]:
            if p1 == p2 or STORE not in (k1, k2):
                continue
            if ordered is not None:
                own1 = ordered[seq1][0]
                clock2 = ordered[seq2][1]
                if own1 <= clock2[columns[p1]]:
                    continue  # a release of p1 reached p2 before this access
            return (seq1, p1, k1), (seq2, p2, k2)
    return None


class Watch:
    """The launches of one watched block, and the first race found."""

    def __init__(self):
        self.current: Launch | None = None
        self.found: Race | None = None

    def begin(self, kernel, args, kwargs) -> None:
        self.finish()
        fn = getattr(kernel, "fn", None)
        name = str(getattr(fn, "__name__", "a kernel"))
        self.current = Launch(name, argument_spans(fn, args, kwargs or {}))

    def finish(self) -> None:
        if self.current is not None and self.found is None:
            self.found = first_race(self.current)
        self.current = None


def argument_spans(fn, args, kwargs) -> dict:
    """The kernel's tensor arguments by parameter name: (first byte, end of
    storage, element bytes)."""
    import torch

    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    bound = dict(zip(names, args, strict=False)) | dict(kwargs)
    spans = {}
    for name, value in bound.items():
        if isinstance(value, torch.Tensor) and value.device.type != "meta":
            storage = value.untyped_storage()
            end = storage.data_ptr() + storage.nbytes()
            spans[str(name)] = (value.data_ptr(), end, value.element_size())
    return spans


def _live(ptrs, mask) -> np.ndarray:
    addresses = np.asarray(ptrs.data).astype(np.int64).reshape(-1)
    if mask is None:
        return addresses
    # A mask may arrive as int32 0s and 1s (an `&` of a block and a scalar):
    # as bool, or indexing would pick lane 0 again and again.
    active = np.asarray(mask.data).astype(bool)
    return addresses[np.broadcast_to(active, np.shape(ptrs.data)).reshape(-1)]


@contextlib.contextmanager
def watching():
    """Record every load, store and atomic of every launch while the block
    runs; yields a :class:`Watch` whose ``found`` is set when it ends."""
    from triton.runtime import interpreter

    from kernels.launches import intercept

    watch = Watch()
    builder = interpreter.InterpreterBuilder
    names = ("create_masked_load", "create_masked_store",
             "create_atomic_rmw", "create_atomic_cas")  # fmt: skip
    saved = {name: getattr(builder, name) for name in names}
    load, store, rmw, cas = (saved[n] for n in names)

    def program():
        return tuple(int(i) for i in interpreter.interpreter_builder.grid_idx)

    def note(kind, ptrs, mask, sem=None):
        if watch.current is not None:
            word = getattr(sem, "name", "ACQUIRE_RELEASE")
            acquire = word in ("ACQUIRE", "ACQUIRE_RELEASE")
            release = word in ("RELEASE", "ACQUIRE_RELEASE")
            watch.current.note(kind, program(), _live(ptrs, mask), acquire, release)

    def masked_load(self, ptrs, mask, *rest, **more):
        note(LOAD, ptrs, mask)
        return load(self, ptrs, mask, *rest, **more)

    def masked_store(self, ptrs, value, mask, *rest, **more):
        note(STORE, ptrs, mask)
        return store(self, ptrs, value, mask, *rest, **more)

    def atomic_rmw(self, op, ptr, val, mask, sem, *rest, **more):
        note(ATOMIC, ptr, mask, sem)
        return rmw(self, op, ptr, val, mask, sem, *rest, **more)

    def atomic_cas(self, ptr, cmp, val, sem, *rest, **more):
        note(ATOMIC, ptr, None, sem)
        return cas(self, ptr, cmp, val, sem, *rest, **more)

    patched = dict(zip(names, (masked_load, masked_store, atomic_rmw, atomic_cas),
                       strict=True))  # fmt: skip
    for name, function in patched.items():
        setattr(builder, name, function)
    undo = intercept(lambda kernel, args, kwargs, grid, interpreted:
                     watch.begin(kernel, args, kwargs))  # fmt: skip
    try:
        yield watch
    finally:
        undo()
        for name, function in saved.items():
            setattr(builder, name, function)
        watch.finish()
