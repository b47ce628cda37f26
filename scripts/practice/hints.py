"""Hints by diagnosis: a failing case gets a hint only when the condition
that hint names was seen in this check, never because of which case failed.

:func:`seen` turns one failure (and the rest of the check: which cases
passed, what the source's stores and loads look like) into the conditions
that hold, most specific first; :func:`hint_for` picks the first that the
exercise (``Exercise.hints``) or this module (``GENERIC``) has words for.
A condition is either one of the generic ones below or a known mistake of
the exercise (``Exercise.mistakes``: the output that mistake produces,
computed from the inputs; the learner's output matching it is the
diagnosis).

Generic conditions:

- ``one_past_end``: exactly the element after ``out`` was written.
- ``store_unmasked`` / ``store_masked_past_end``: a store landed past the
  end, and some ``tl.store`` in the file has no mask / every one has one.
- ``load_unmasked`` / ``load_masked_past_end``: the same for a load.
- ``added_onto_out``: never-written elements where an atomic added onto out.
- ``last_unwritten``, ``tail_unwritten``, ``columns_unwritten``,
  ``rows_unwritten``: the elements never written are the last one only,
  the last ones, whole columns, whole rows.
- ``stride``: this case has a non-contiguous input and every case whose
  inputs are all contiguous passed.
- ``overflow``: results not finite where the reference is, in a case with
  large inputs, while every case without them passed.
- ``ragged``: this case's rows (its last extent) are not a power of two, so
  a block runs past each, and every case whose rows are passed.
- ``ulp``: every wrong element is within ``ULPS`` float32 ulps.
- otherwise the failure's kind itself (``nan_lost``, ``timeout``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

#: "A few ulp": every wrong element within this many float32 ulps.
ULPS = 8
#: How near a known mistake's output the learner's must be to be named it.
MATCH_RTOL = 1e-3


@dataclass
class Failure:
    """One failing case, with what the diagnosis reads."""

    kind: str
    sentence: str
    out: torch.Tensor | None = None
    truth: torch.Tensor | None = None
    inputs: list = field(default_factory=list)  # float64, as the kernel saw them
    guard: torch.Tensor | None = None  # the guard bytes after out
    atomics: list = field(default_factory=list)
    params: dict = field(default_factory=dict)


GENERIC = {
    "one_past_end": "exactly one element past the end was written: does the "
    "mask say <= where it should say <?",
    "store_unmasked": "mask the store: a lane past the end must not write",
    "store_masked_past_end": "every store has a mask, yet one landed past the "
    "end: does the mask test the same offsets the store writes to, with the "
    "right strides?",
    "load_unmasked": "mask the load too: on a GPU an unmasked lane reads "
    "whatever follows the tensor, or faults",
    "load_masked_past_end": "every load has a mask, yet one read past the end: "
    "does the mask test the same offsets the load reads?",
    "before_start": "a store landed before out: is an offset negative or wrapped?",
    "added_onto_out": "out starts as whatever memory held, not zero: an atomic "
    "add onto it adds onto that; store the total with tl.store",
    "last_unwritten": "only the last one, in every case: does the mask say "
    "< n - 1 where it should say < n?",
    "tail_unwritten": "the last ones: is the grid triton.cdiv(n, BLOCK), "
    "computed from n on every call?",
    "columns_unwritten": "whole columns: does the grid cover every column block?",
    "rows_unwritten": "whole rows: does the grid cover every row?",
    "stride": "right on contiguous inputs, wrong on this view: address each "
    "input through its strides (x.stride(0), x.stride(1)), not its shape",
    "overflow": "not finite only for large inputs: exp overflows float32 past "
    "about 88; subtract the row's max before exp",
    "ragged": "wrong only where a block runs past the end of a row: what do "
    "the masked lanes load, and what do you divide by?",
    "ulp": "every wrong element is within a few float32 ulps of the reference: "
    "the arithmetic is right but rounds differently (a reciprocal, an "
    "approximate function, another order); compute it as the contract says",
    "nan_lost": "NaN inputs must give NaN, as the reference does",
    "mutated": "the inputs must come back unchanged: store only into out",
    "nondeterministic": "two calls gave different bits: is something left over "
    "from the first call, or read before it is written?",
    "race": "the interpreter runs one program after another, so the values "
    "came out right; on a GPU the programs run at once, and one can load (or "
    "overwrite) the element before the other has stored it. Give each "
    "program its own element (a partial per program, combined by a second "
    "launch), or order the two with atomics",
    "raised": "read the exception and the line it names",
    "exit": "the function must return, not end the process (sys.exit, exit, quit)",
    "crash": "the process died at an address outside every tensor (a negative "
    "or wrapped offset, an unmasked lane)",
    "aborted": "memory outside every tensor was overwritten, and the "
    "allocator noticed: a store far past the end, beyond the guard?",
    "died": "the process ended without a result: os._exit, a fault in native "
    "code, or memory past the limit",
    "timeout": "a loop that never ends, or a grid far larger than the data?",
    "tf32": "on a GPU a float32 tl.dot runs as TF32 unless told otherwise (its "
    "operands rounded to 10 mantissa bits), far outside this tolerance: pass "
    'input_precision="ieee"',
    "no_kernel": "the exercise is to write the kernel: out must be stored by a "
    "Triton kernel in your file, not by torch",
    "foreign": "a pass must be your own kernel, not a folded solution or the course's",
}


def hint_for(exercise, conditions: list[str]) -> tuple[str, str]:
    """(condition, words) for the first condition that has words; ("", "")."""
    for condition in conditions:
        words = exercise.hints.get(condition) or GENERIC.get(condition)
        if words:
            return condition, words
    return "", ""


def seen(exercise, case, failure: Failure, passed: dict, facts: dict) -> list[str]:
    """The conditions one failure shows, most specific first. ``passed``:
    case name -> passed, for the check's cases that ran; ``facts``: the
    source's ``store_unmasked`` and ``load_unmasked``, and
    ``only_last_unwritten``: every case with elements never written missed
    its last element only (one such case alone could be a short grid)."""
    kind = failure.kind
    if kind == "past_end":
        if _one_past(failure.guard, failure.out.element_size()):
            return ["one_past_end"]
        if facts.get("store_unmasked"):
            return ["store_unmasked"]
        return ["store_masked_past_end"]
    if kind == "read_past":
        if facts.get("load_unmasked"):
            return ["load_unmasked"]
        return ["load_masked_past_end"]
    if kind == "unwritten":
        found = _unwritten(failure)
        if "last_unwritten" in found and not facts.get("only_last_unwritten"):
            found[found.index("last_unwritten")] = "tail_unwritten"
        return found
    if kind in ("values", "nonfinite"):
        return _wrong_values(exercise, case, failure, passed)
    return [kind]


def _one_past(guard: torch.Tensor, size: int) -> bool:
    from scripts.practice.grader import SENTINEL

    changed = (guard != SENTINEL).nonzero().flatten()
    return bool(changed.numel()) and int(changed.max()) < size


def unwritten(out: torch.Tensor) -> torch.Tensor:
    """Where out still holds the sentinel fill, element by element."""
    from scripts.practice.grader import SENTINEL

    raw = out.contiguous().view(torch.uint8).reshape(*out.shape, out.element_size())
    return (raw == SENTINEL).all(dim=-1)


def _unwritten(failure: Failure) -> list[str]:
    found = []
    if any(n == "out" and op in ("add", "fadd") for n, op, _ in failure.atomics):
        found.append("added_onto_out")
    out = failure.out
    missing = unwritten(out)
    flat = missing.reshape(-1)
    first = int(flat.nonzero()[0])
    if first == flat.numel() - 1:
        found.append("last_unwritten")
    elif bool(flat[first:].all()):
        found.append("tail_unwritten")
    if out.dim() == 2:
        columns, rows = missing.all(dim=0), missing.all(dim=1)
        if bool((missing == columns[None, :]).all()):
            found.append("columns_unwritten")
        if bool((missing == rows[:, None]).all()):
            found.append("rows_unwritten")
    return found


def _wrong_values(exercise, case, failure: Failure, passed: dict) -> list[str]:
    distances = {
        name: _distance(failure, made) for name, made in exercise.mistakes.items()
    }
    near = [n for n, d in distances.items() if d <= MATCH_RTOL]
    found = sorted(near, key=distances.get)[:1]  # the nearest mistake only
    others = {c.name: c for c in exercise.cases if c.name in passed}

    def all_pass(where) -> bool:
        chosen = [n for n, c in others.items() if where(c) and n != case.name]
        return bool(chosen) and all(passed[n] for n in chosen)

    if _strided(case) and all_pass(lambda c: not _strided(c)):
        found.append("stride")
    not_finite = bool((~failure.out.isfinite() & failure.truth.isfinite()).any())
    if not_finite and _large(case) and all_pass(lambda c: not _large(c)):
        found.append("overflow")
    if _ragged(case) and all_pass(lambda c: not _ragged(c)):
        found.append("ragged")
    if _within_ulps(failure.out, failure.truth):
        found.append("ulp")
    return found


def _distance(failure: Failure, made) -> float:
    """How far the learner's output is from a mistake's nearest output: the
    largest |out - candidate| / (atol + |candidate|) over the elements, with
    the candidate rounded to the output's dtype first (inf if no candidate
    has the shape). A diagnosis, not a pass: MATCH_RTOL is loose because the
    learner's float32 arithmetic differs from the float64 candidate's."""
    best = float("inf")
    out = failure.out.to(torch.float64)
    for candidate in made(*failure.inputs, **(failure.params or {})):
        if candidate.shape != out.shape:
            continue
        rounded = candidate.to(failure.out.dtype).to(torch.float64)
        same = (out == rounded) | (out.isnan() & rounded.isnan())
        gap = ((out - rounded).abs() / (1e-12 + rounded.abs())).masked_fill(same, 0.0)
        best = min(
            best, float(gap.nan_to_num(float("inf")).max()) if gap.numel() else 0.0
        )
    return best


def _strided(case) -> bool:
    return any(spec.view for spec in case.inputs)


def _large(case) -> bool:
    return any(spec.fill == "large" for spec in case.inputs)


def _ragged(case) -> bool:
    """A row (the last extent) that no power-of-two block fits exactly."""
    last = case.out_shape[-1]
    return bool(last & (last - 1))


def _within_ulps(out: torch.Tensor, truth: torch.Tensor) -> bool:
    if not out.dtype.is_floating_point:
        return False
    near = truth.to(torch.float32)
    ulp = (torch.nextafter(near.abs(), torch.tensor(float("inf"))) - near.abs()).to(
        torch.float64
    )
    off = (out.to(torch.float64) - truth).abs()
    wrong = off > 0
    finite = truth.isfinite() & out.isfinite()
    return bool(wrong.any()) and bool((finite & (off <= ULPS * ulp))[wrong].all())
