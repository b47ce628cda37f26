"""What a learner's launches did, seen from the Triton interpreter's builder
(``TRITON_INTERPRET=1``): whether a store from a kernel in the learner's file
reached ``out`` (and which other file's kernel did, if one did), which
tensor each atomic touched and whether it was a float atomic, and the input
precision of every float32 ``tl.dot``. The learner's process
(``learner_child.py``) wraps one case's call in :func:`watched`; the
practice grader judges the summary.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.realpath(__file__))
#: Frames of these files sit between a kernel's line and the builder.
PLUMBING = (
    os.path.join(HERE, "learner_watch.py"),
    os.path.realpath(os.path.join(HERE, "..", "..", "snippets", "lib", "accesses.py")),
    os.path.join(HERE, "races.py"),
)


@dataclass
class Seen:
    path: str  # the learner's file
    spans: dict  # tensor name -> [start, end) bytes
    stored: bool = False
    foreign: str = ""
    atomics: list = field(default_factory=list)
    dots: set = field(default_factory=set)
    _real: dict = field(default_factory=dict)

    def touched(self, ptrs, mask) -> list[str]:
        import numpy as np

        addresses = np.asarray(ptrs.data).astype(np.uint64).reshape(-1)
        if mask is not None:
            active = np.asarray(mask.data).astype(bool)  # int32 at times
            active = np.broadcast_to(active, ptrs.data.shape)
            addresses = addresses[active.reshape(-1)]
        if not addresses.size:
            return []
        low, high = int(addresses.min()), int(addresses.max())
        names = [n for n, (a, b) in self.spans.items() if low < b and a <= high]
        return names or ["a buffer of your own"]

    def kernel_file(self) -> str:
        """The file of the innermost frame that is neither Triton's nor the
        grader's plumbing: the kernel whose line stored."""
        import triton

        library = os.path.dirname(os.path.realpath(triton.__file__))
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            real = self._real.setdefault(name, os.path.realpath(name))
            if not real.startswith(library) and real not in PLUMBING:
                return real
            frame = frame.f_back
        return ""

    def note_store(self) -> None:
        where = self.kernel_file()
        if where == self.path:
            self.stored = True
        elif not self.foreign:
            self.foreign = where

    def summary(self) -> dict:
        return {
            "stored": self.stored,
            "foreign": self.foreign,
            "atomics": sorted({tuple(a) for a in self.atomics}),
            "dots": sorted(self.dots),
        }


@contextlib.contextmanager
def watched(buffer, storages: dict, path: str):
    """Watch one case's call; yields a :class:`Seen`. ``buffer`` is out with
    its guards (a store into a guard still counts as reaching out)."""
    from triton.runtime import interpreter

    spans = {"out": _span(buffer)} | {n: _span(s) for n, s in storages.items()}
    seen = Seen(path, spans)
    builder = interpreter.InterpreterBuilder
    store, rmw = builder.create_masked_store, builder.create_atomic_rmw
    cas, dot = builder.create_atomic_cas, builder.create_dot

    def masked_store(self, ptrs, value, mask, *rest):
        if "out" in seen.touched(ptrs, mask):
            seen.note_store()
        return store(self, ptrs, value, mask, *rest)

    def atomic_rmw(self, op, ptr, val, mask, *rest):
        is_float = val.dtype.is_floating()
        for name in seen.touched(ptr, mask):
            seen.atomics.append((name, op.name.lower(), is_float))
            if name == "out":
                seen.note_store()
        return rmw(self, op, ptr, val, mask, *rest)

    def atomic_cas(self, ptr, cmp, val, *rest):
        for name in seen.touched(ptr, None):
            seen.atomics.append((name, "cas", val.dtype.is_floating()))
        return cas(self, ptr, cmp, val, *rest)

    def create_dot(self, a, b, d, precision, *rest):
        if a.dtype.is_fp32() or b.dtype.is_fp32():
            seen.dots.add(precision.name.lower())
        return dot(self, a, b, d, precision, *rest)

    patched = {
        "create_masked_store": masked_store,
        "create_atomic_rmw": atomic_rmw,
        "create_atomic_cas": atomic_cas,
        "create_dot": create_dot,
    }
    saved = {name: getattr(builder, name) for name in patched}
    for name, function in patched.items():
        setattr(builder, name, function)
    try:
        yield seen
    finally:
        for name, function in saved.items():
            setattr(builder, name, function)


def _span(tensor) -> tuple[int, int]:
    start = tensor.data_ptr()
    return start, start + tensor.numel() * tensor.element_size()
