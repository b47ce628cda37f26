"""Races between the programs of one launch on the page: the harness's rule
(``scripts/qualify/races.py``) on the subset's own record of every access.

The subset runs each program itself, so it knows exactly which program
loaded, stored or atomically updated which element of which storage. A race
is two accesses to one element by two programs of one launch, at least one a
plain store, that no atomic orders: an acquire (or acq_rel) atomic on an
element sees what its program's release (or acq_rel) atomics on that
element published before it, and clocks carry that across programs, replayed
in the order the programs ran (the harness's vector clocks). Programs that
store partials and draw an acq_rel ticket, the last combining the partials,
do not race; a program that loads the carry its predecessor stored does.

A launch records only with more than one program (one program cannot race
with itself). :func:`first_race` returns the first race as the harness's
``Race.to_dict`` names it: the element in the tensor the grader named
(``out``, an input) or else in the kernel's argument that holds it. The
elements of different storages are taken in the kernel's argument order
(the harness takes them in address order, which a page cannot know): only
a launch racing on two storages can name another element than the CLI.
"""

# ruff: noqa: B905  (zips of lists built to one length, in the page's hot loops)

from __future__ import annotations

LOAD, STORE, ATOMIC = "load", "store", "atomic"
#: An atomic's ``sem`` -> (acquires, releases); Triton's default is acq_rel.
SEMANTICS = {
    None: (True, True),
    "acq_rel": (True, True),
    "acquire": (True, False),
    "release": (False, True),
    "relaxed": (False, False),
}


class Record:
    """What one launch did: every access, in the order the programs ran."""

    def __init__(self, kernel: str, pointers: list):
        self.kernel = kernel
        self.pointers = pointers  # (parameter name, storage, first element)
        self.seq = 0
        self.chunks: list[tuple] = []  # (seq, program, kind, memory, places, active)
        self.syncs: list[tuple] = []  # (seq, program, memory, places, acq, rel)

    def note(self, kind, program, memory, places, active, sem=None) -> None:
        self.seq += 1
        self.chunks.append((self.seq, program, kind, memory, places, active))
        if kind == ATOMIC:
            acquire, release = SEMANTICS[sem]
            if acquire or release:
                live = _live(places, active)
                self.syncs.append((self.seq, program, memory, live, acquire, release))


def _live(places, active) -> list:
    if active is None:
        return places
    return [p for p, a in zip(places, active) if a]


def conflicts(record: Record) -> dict[int, set]:
    """{id(storage): elements} that a plain store of one program and an
    access of another both reach."""
    owners: dict[int, dict] = {}  # storage -> element -> a program storing it
    found: dict[int, set] = {}
    for _, program, kind, memory, places, active in record.chunks:
        if kind != STORE:
            continue
        live = _live(places, active)
        mine = owners.setdefault(id(memory), {})
        clash = [p for p in mine.keys() & live if mine[p] != program]
        if clash:
            found.setdefault(id(memory), set()).update(clash)
        mine.update(dict.fromkeys(live, program))
    for _, program, kind, memory, places, active in record.chunks:
        mine = owners.get(id(memory))
        if kind == STORE or not mine:
            continue
        clash = [p for p in mine.keys() & _live(places, active) if mine[p] != program]
        if clash:
            found.setdefault(id(memory), set()).update(clash)
    return found


def replay(record: Record, needed: set) -> dict:
    """(own clock, vector clock) of each access in `needed`, by sequence
    number: the order the atomics' acquires and releases set up."""
    own: dict = {}
    clocks: dict = {}
    at_element: dict = {}
    events = sorted(
        [(s, 0, p, m, e, q, r) for s, p, m, e, q, r in record.syncs]
        + [(c[0], 1, c[1], None, None, 0, 0) for c in record.chunks if c[0] in needed],
        key=lambda event: event[:2],
    )  # fmt: skip
    seen = {}
    for seq, is_access, program, memory, elements, acquire, release in events:
        mine = clocks.get(program, {})
        if is_access:
            seen[seq] = (own.get(program, 1), mine)
            continue
        for element in sorted(set(elements)):
            where = (id(memory), element)
            if acquire and where in at_element:
                mine = _join(mine, at_element[where])
            if release:
                published = {**mine, program: own.get(program, 1)}
                known = at_element.get(where)
                at_element[where] = published if known is None else _join(
                    known, published)  # fmt: skip
        clocks[program] = mine
        if release:
            own[program] = own.get(program, 1) + 1
    return seen


def _join(a: dict, b: dict) -> dict:
    joined = dict(a)
    for program, count in b.items():
        if count > joined.get(program, 0):
            joined[program] = count
    return joined


def first_race(record: Record) -> dict | None:
    """The launch's first race (``races.Race.to_dict``'s fields), or None."""
    found = conflicts(record)
    if not found:
        return None
    accesses: dict[tuple, list] = {}  # (storage, element) -> (seq, program, kind)
    for seq, program, kind, memory, places, active in record.chunks:
        clash = found.get(id(memory))
        if clash:
            for element in clash.intersection(_live(places, active)):
                accesses.setdefault((id(memory), element), []).append(
                    (seq, program, kind))  # fmt: skip
    ordered = None
    if record.syncs:
        ordered = replay(record, {a[0] for seen in accesses.values() for a in seen})
    for where in sorted(accesses, key=_order(record)):
        pair = unordered_pair(accesses[where], ordered)
        if pair is not None:
            (_, p1, k1), (_, p2, k2) = pair
            tensor, element = named(record, where)
            return {"kernel": record.kernel[:200], "kinds": [k1, k2],
                    "programs": [list(p1), list(p2)],
                    "tensor": tensor, "element": element}  # fmt: skip
    return None


def _order(record: Record):
    rank = {}
    for _, memory, _ in record.pointers:
        rank.setdefault(id(memory), len(rank))
    return lambda where: (rank.get(where[0], len(rank)), where[1])


def unordered_pair(accesses: list, ordered):
    """The first two accesses (seq, program, kind), in the order they ran,
    of two programs, one a plain store, that nothing orders; or None."""
    for j, (seq2, p2, k2) in enumerate(accesses):
        for seq1, p1, k1 in accesses[:j]:
            if p1 == p2 or STORE not in (k1, k2):
                continue
            if ordered is not None:
                own1 = ordered[seq1][0]
                if own1 <= ordered[seq2][1].get(p1, 0):
                    continue  # a release of p1 reached p2 before this access
            return (seq1, p1, k1), (seq2, p2, k2)
    return None


def named(record: Record, where: tuple) -> tuple[str, int]:
    """(tensor, element) as the CLI's child names them: the grader's name
    where the element is in its data, else the kernel argument holding it."""
    found = ("", -1)
    for name, memory, first in record.pointers:
        if id(memory) == where[0] and first <= where[1] < len(memory.values):
            found = (name, where[1] - first)
            break
    for _, memory, _ in record.pointers:
        low, high = memory.span
        if id(memory) == where[0] and memory.name and low <= where[1] < high:
            found = (memory.name, where[1] - low)
    return found
