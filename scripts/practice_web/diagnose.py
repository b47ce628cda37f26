"""The CLI grader's diagnosis (``scripts/practice/hints.py``'s conditions,
``scripts/qualify/judge.py``'s value checks) on the subset's tensors: which
conditions one failure shows, most specific first. The hint words are the
CLI's own (``hints.hint_for``); only the arithmetic is done here, without
torch.
"""

# ruff: noqa: B905  (zips of lists built to one length, in the page's hot loops)

from __future__ import annotations

import math
import struct

from scripts.practice.hints import MATCH_RTOL, ULPS
from scripts.practice_web.blocks import convert
from scripts.practice_web.dtypes import float32, float64


def missing(out, sentinel=None) -> list[bool]:
    """Where out still holds the sentinel fill."""
    from scripts.practice_web.cases import sentinel_value

    sentinel = sentinel_value(out.dtype) if sentinel is None else sentinel
    return [v == sentinel for v in out.tolist_flat()]


def missing_count(out) -> int:
    return sum(missing(out))


def never_written(out, sentinel) -> str | None:
    hit = [i for i, m in enumerate(missing(out, sentinel)) if m]
    if not hit:
        return None
    ranges, start, last = [], hit[0], hit[0]
    for index in hit[1:]:
        if index != last + 1:
            ranges.append((start, last))
            start = index
        last = index
    ranges.append((start, last))
    text = ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in ranges[:4])
    more = f" and {len(ranges) - 4} more ranges" if len(ranges) > 4 else ""
    noun, verb = ("element", "was") if len(hit) == 1 else ("elements", "were")
    return f"{noun} {text}{more} {verb} never written (still the sentinel fill)"


def value_problem(exercise, out, truth) -> str | None:
    got, want = out.tolist_flat(), truth.tolist_flat()
    if exercise.tolerance[0] != "exact":
        return close(got, want, *exercise.tolerance[1:], out.shape)
    if out.dtype.kind == "float":
        want = convert(want, truth.dtype, out.dtype)
    return close(got, want, 0.0, 0.0, out.shape)


def close(got, want, atol, rtol, shape) -> str | None:
    """Where the reference is a number, |out - truth| <= atol + rtol |truth|."""
    bad = [
        i for i, (g, w) in enumerate(zip(got, want))
        if not (w != w or g == w or (math.isfinite(w) and abs(g - w) <= atol + rtol * abs(w)))  # noqa: E501
    ]  # fmt: skip
    if not bad:
        return None
    first = _index(bad[0], shape)
    return (f"{len(bad)} of {len(want)} elements are off; first at index {first}: "
            f"expected {want[bad[0]]:.6g}, got {got[bad[0]]:.6g}")  # fmt: skip


def _index(flat: int, shape) -> tuple[int, ...]:
    place = []
    for extent in reversed(shape):
        place.append(flat % extent)
        flat //= extent
    return tuple(reversed(place))


def seen(exercise, case, failure, passed: dict, facts: dict) -> list[str]:
    """hints.seen, condition for condition."""
    kind = failure.kind
    if kind == "past_end":
        if _one_past(failure):
            return ["one_past_end"]
        return [
            "store_unmasked" if facts.get("store_unmasked") else "store_masked_past_end"
        ]
    if kind == "read_past":
        return [
            "load_unmasked" if facts.get("load_unmasked") else "load_masked_past_end"
        ]
    if kind == "unwritten":
        found = _unwritten(failure)
        if "last_unwritten" in found and not facts.get("only_last_unwritten"):
            found[found.index("last_unwritten")] = "tail_unwritten"
        return found
    if kind in ("values", "nonfinite"):
        return _wrong_values(exercise, case, failure, passed)
    return [kind]


def _one_past(failure) -> bool:
    from scripts.practice_web.cases import sentinel_value

    sentinel = sentinel_value(failure.out.dtype)
    changed = [i for i, v in enumerate(failure.guard_after) if v != sentinel]
    return bool(changed) and max(changed) < 1


def _unwritten(failure) -> list[str]:
    found = []
    if any(n == "out" and op in ("add", "fadd") for n, op, _ in failure.atomics):
        found.append("added_onto_out")
    flat = missing(failure.out)
    first = flat.index(True)
    if first == len(flat) - 1:
        found.append("last_unwritten")
    elif all(flat[first:]):
        found.append("tail_unwritten")
    if len(failure.out.shape) == 2:
        rows, cols = failure.out.shape
        grid = [flat[r * cols : (r + 1) * cols] for r in range(rows)]
        columns = [all(grid[r][c] for r in range(rows)) for c in range(cols)]
        whole_rows = [all(row) for row in grid]
        if all(grid[r][c] == columns[c] for r in range(rows) for c in range(cols)):
            found.append("columns_unwritten")
        if all(grid[r][c] == whole_rows[r] for r in range(rows) for c in range(cols)):
            found.append("rows_unwritten")
    return found


def _wrong_values(exercise, case, failure, passed: dict) -> list[str]:
    distances = {n: _distance(failure, made) for n, made in exercise.mistakes.items()}
    near = [n for n, d in distances.items() if d <= MATCH_RTOL]
    found = sorted(near, key=distances.get)[:1]
    others = {c.name: c for c in exercise.cases if c.name in passed}

    def all_pass(where) -> bool:
        chosen = [n for n, c in others.items() if where(c) and n != case.name]
        return bool(chosen) and all(passed[n] for n in chosen)

    strided = lambda c: any(s.view for s in c.inputs)  # noqa: E731
    large = lambda c: any(s.fill == "large" for s in c.inputs)  # noqa: E731
    ragged = lambda c: bool(c.out_shape[-1] & (c.out_shape[-1] - 1))  # noqa: E731
    got, want = failure.out.tolist_flat(), failure.truth.tolist_flat()
    if strided(case) and all_pass(lambda c: not strided(c)):
        found.append("stride")
    not_finite = any(
        not math.isfinite(g) and math.isfinite(w) for g, w in zip(got, want)
    )
    if not_finite and large(case) and all_pass(lambda c: not large(c)):
        found.append("overflow")
    if ragged(case) and all_pass(lambda c: not ragged(c)):
        found.append("ragged")
    if failure.out.dtype.kind == "float" and within_ulps(got, want):
        found.append("ulp")
    return found


def _distance(failure, made) -> float:
    best = math.inf
    got = failure.out.tolist_flat()
    for candidate in made(*failure.inputs, **(failure.params or {})):
        if tuple(candidate.shape) != tuple(failure.out.shape):
            continue
        rounded = convert(candidate.tolist_flat(), candidate.dtype, failure.out.dtype)
        rounded = convert(rounded, failure.out.dtype, float64)
        gaps = [0.0 if (g == r or (g != g and r != r)) else
                _gap(g, r) for g, r in zip(got, rounded)]  # fmt: skip
        best = min(best, max(gaps) if gaps else 0.0)
    return best


def _gap(g: float, r: float) -> float:
    gap = abs(g - r) / (1e-12 + abs(r))
    return math.inf if gap != gap else gap


def _ulp32(x: float) -> float:
    """The gap from |x| (as float32) to the next float32 up."""
    near = abs(convert([x], float64, float32)[0])
    if not math.isfinite(near):
        return math.nan
    bits = struct.unpack("<I", struct.pack("<f", near))[0]
    if bits >= 0x7F7FFFFF:
        return math.inf
    return struct.unpack("<f", struct.pack("<I", bits + 1))[0] - near


def within_ulps(got, want) -> bool:
    wrong = [
        (g, w) for g, w in zip(got, want) if abs(g - w) > 0 or (g != g) != (w != w)
    ]
    wrong = [(g, w) for g, w in wrong if not (g != g and w != w)]
    if not wrong:
        return False
    return all(math.isfinite(g) and math.isfinite(w) and abs(g - w) <= ULPS * _ulp32(w)
               for g, w in wrong)  # fmt: skip
