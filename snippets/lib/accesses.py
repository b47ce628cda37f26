"""See a kernel's memory accesses: which elements each program loads and
stores, which lanes of a warp touch contiguous bytes, what is masked off.

Taught in docs/kernels/memory-bound/transpose-and-coalescing.md, and offered
by the practice grader (``.venv/bin/python -m scripts.practice check NAME FILE
--show-accesses``). Evidence kind: the Triton interpreter, which runs each
program in turn and hands every ``tl.load`` and ``tl.store`` to its builder
as an array of addresses and a mask; :func:`record` wraps those two builder
calls, so any kernel run with ``TRITON_INTERPRET=1`` can be watched, the
reader's own included. ``triton-viz`` (3.0 on PyPI) draws richer pictures,
but it brings a web viewer and a dozen dependencies (flask, z3-solver,
cairocffi, pyarrow, flask_cloudflared) and patches the interpreter's
internals; it is not used here, and whether it runs on Triton 3.8 and 3.6
was not tried.

What the record cannot say: which thread holds which element. That is the
compiled layout's choice; here, as an approximation stated wherever it is
used, lane ``i`` of a warp holds element ``i`` of the access in row-major
order, 32 lanes a warp, which is how Triton's default blocked layout assigns
a 1-D block, and the memory system serves each warp's request in 32-byte
sectors. The pictures are drawn from a committed record
(``snippets/lib/accesses.json``, rewritten by ``python -m
snippets.lib.accesses --write``), so the site's build never runs a kernel.
"""

from __future__ import annotations

import contextlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from snippets.lib.diagrams import ACCENT, FONT_SIZE, INK, MUTED, SECOND, figure

RECORD = Path(__file__).with_suffix(".json")
LANES = 32
SECTOR_BYTES = 32


@dataclass
class Access:
    """One tl.load or tl.store of one program."""

    program: tuple[int, int, int]
    kind: str  # "load" or "store"
    offsets: list[int]  # element offsets from the tensor's start, lane order
    active: list[bool]  # the mask
    element_bytes: int


def lanes_on(mask, ptrs):
    """The mask as one bool per lane. A mask can reach the interpreter as
    int32 0s and 1s (an ``&`` of a block and a scalar); used as an index
    as it is, it would pick lanes 0 and 1 again and again."""
    import numpy as np

    active = np.asarray(mask.data).astype(bool)
    return np.broadcast_to(active, np.shape(ptrs.data)).reshape(-1)


@contextlib.contextmanager
def record(tensors: dict):
    """Record every load and store that touches one of ``tensors``
    (name -> torch tensor) while the block runs, into the list it yields as
    ``{name: [Access, ...]}``. Needs ``TRITON_INTERPRET=1``."""
    import numpy as np
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    seen = {name: [] for name in tensors}
    spans = {
        name: (t.data_ptr(), t.data_ptr() + t.untyped_storage().nbytes(),
               t.element_size())
        for name, t in tensors.items()
    }  # fmt: skip

    def note(kind, ptrs, mask):
        addresses = np.asarray(ptrs.data).astype(np.int64).reshape(-1)
        active = lanes_on(mask, ptrs)
        grid = tuple(int(i) for i in interpreter.interpreter_builder.grid_idx)
        for name, (start, end, size) in spans.items():
            live = addresses[active]
            if live.size and start <= live.min() and live.max() < end:
                seen[name].append(
                    Access(grid, kind, ((addresses - start) // size).tolist(),
                           active.tolist(), size)
                )  # fmt: skip

    load, store = builder.create_masked_load, builder.create_masked_store

    def recorded_load(self, ptrs, mask, other, *rest):
        note("load", ptrs, mask)
        return load(self, ptrs, mask, other, *rest)

    def recorded_store(self, ptrs, value, mask, *rest):
        note("store", ptrs, mask)
        return store(self, ptrs, value, mask, *rest)

    builder.create_masked_load, builder.create_masked_store = (
        recorded_load,
        recorded_store,
    )
    try:
        yield seen
    finally:
        builder.create_masked_load, builder.create_masked_store = load, store


@contextlib.contextmanager
def reads_into_guards(guards: dict):
    """Name every tensor some active load lane read just outside of.
    ``guards``: name -> (guard start, data start, data end, guard end) in
    bytes; the set yielded fills with names whose guard a load touched (the
    practice grader puts guards around each input, so an unmasked tail lands
    there; a GPU would read a neighbour's bytes or fault)."""
    import numpy as np
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    hit: set[str] = set()
    load = builder.create_masked_load

    def checked_load(self, ptrs, mask, other, *rest):
        addresses = np.asarray(ptrs.data).astype(np.int64).reshape(-1)
        live = addresses[lanes_on(mask, ptrs)]
        for name, (lo, start, end, hi) in guards.items():
            if (
                live.size
                and (
                    ((live >= lo) & (live < start)) | ((live >= end) & (live < hi))
                ).any()
            ):
                hit.add(name)
        return load(self, ptrs, mask, other, *rest)

    builder.create_masked_load = checked_load
    try:
        yield hit
    finally:
        builder.create_masked_load = load


# --8<-- [start:sectors]
def sectors_per_warp(access: Access) -> list[int]:
    """For each warp (32 lanes in a row) of one access: how many 32-byte
    sectors its active lanes touch. 4-byte elements, contiguous: 4 sectors
    for 32 lanes (128 bytes). Strided by a row: up to 32, one per lane."""
    out = []
    for first in range(0, len(access.offsets), LANES):
        lanes = range(first, min(first + LANES, len(access.offsets)))
        touched = {
            access.offsets[i] * access.element_bytes // SECTOR_BYTES
            for i in lanes
            if access.active[i]
        }
        if touched:
            out.append(len(touched))
    return out


# --8<-- [end:sectors]


def ideal_sectors(access: Access) -> int:
    """Sectors a fully contiguous warp of this element size needs."""
    return max(1, LANES * access.element_bytes // SECTOR_BYTES)


def summary(accesses: list[Access]) -> dict:
    """Loads and stores: count, mean sectors per warp, the contiguous ideal,
    and masked-off lanes."""
    out = {}
    for kind in ("load", "store"):
        mine = [a for a in accesses if a.kind == kind]
        warps = [s for a in mine for s in sectors_per_warp(a)]
        out[kind] = {
            "accesses": len(mine),
            "sectors_per_warp": round(sum(warps) / len(warps), 2) if warps else 0,
            "ideal": ideal_sectors(mine[0]) if mine else 0,
            "masked_off_lanes": sum(a.active.count(False) for a in mine),
        }
    return out


def owners(accesses: list[Access], numel: int, kind: str = "store") -> list[int]:
    """For each element of the tensor, the (flattened) program that last
    touched it with ``kind``, or -1."""
    owner = [-1] * numel
    for a in accesses:
        if a.kind != kind:
            continue
        program = a.program[0] + 1000 * a.program[1]
        for offset, on in zip(a.offsets, a.active, strict=True):
            if on and 0 <= offset < numel:
                owner[offset] = program
    return owner


# --------------------------------------------------------------------------
# The transposes the coalescing lesson compares, recorded
# --------------------------------------------------------------------------

SHAPE = (32, 64)  # small: every program of both kernels fits a picture


def _kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def naive_transpose(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
        # One program per row of x: reads the row, writes a column of out.
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask)
        tl.store(out_ptr + cols * M + row, x, mask=mask)

    @triton.jit
    def tiled_transpose(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        # One program per BM x BN tile: rows of x in, rows of out out.
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        cols = tl.program_id(1) * BN + tl.arange(0, BN)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
        tl.store(out_ptr + cols[:, None] * M + rows[None, :], tl.trans(tile),
                 mask=tl.trans(mask))  # fmt: skip

    return naive_transpose, tiled_transpose


def transposes() -> dict:
    """Both transposes of a 32 x 64 float32 matrix, recorded: summaries and
    the output's owners."""
    import torch
    import triton

    naive, tiled = _kernels()
    M, N = SHAPE
    x = torch.arange(M * N, dtype=torch.float32).reshape(M, N)
    found = {}
    for name, launch in (
        ("naive", lambda out: naive[(M,)](x, out, M, N, BLOCK=64)),
        ("tiled", lambda out: tiled[(triton.cdiv(M, 16), triton.cdiv(N, 16))](
            x, out, M, N, BM=16, BN=16)),
    ):  # fmt: skip
        out = torch.empty(N, M)
        with record({"x": x, "out": out}) as seen:
            launch(out)
        assert torch.equal(out, x.T)
        found[name] = {
            "loads": summary(seen["x"])["load"],
            "stores": summary(seen["out"])["store"],
            "owners": owners(seen["out"], M * N),
        }
    return found


def describe(accesses_by_tensor: dict) -> str:
    """Lines for a terminal: per tensor, loads and stores and their sectors."""
    lines = [
        f"accesses (lane i of a warp = element i of the access, {LANES} lanes, "
        f"{SECTOR_BYTES}-byte sectors):"
    ]
    for name, accesses in accesses_by_tensor.items():
        for kind, s in summary(accesses).items():
            if s["accesses"]:
                lines.append(
                    f"  {name}: {s['accesses']} {kind}s, {s['sectors_per_warp']} "
                    f"sectors per warp (contiguous: {s['ideal']}), "
                    f"{s['masked_off_lanes']} lanes masked off"
                )
    return "\n".join(lines)


def write_record(path: Path = RECORD) -> Path:
    path.write_text(json.dumps(transposes(), indent=1) + "\n")
    return path


def load_record(path: Path = RECORD) -> dict:
    return json.loads(path.read_text())


# --------------------------------------------------------------------------
# Pictures, from the committed record (no torch at build time)
# --------------------------------------------------------------------------


def transpose_owners_figure():
    """Which program wrote each element of out, for both transposes, with
    the sectors per warp of their stores."""
    from matplotlib.colors import ListedColormap

    data = load_record()
    fig = figure(6.8, 3.4)
    axes = fig.subplots(1, 2)
    N, M = SHAPE[1], SHAPE[0]
    palette = ListedColormap([ACCENT, SECOND, MUTED, INK])
    for ax, name in zip(axes, ("naive", "tiled"), strict=True):
        owner = data[name]["owners"]
        grid = [[owner[r * M + c] % 4 for c in range(M)] for r in range(N)]
        ax.imshow(grid, cmap=palette, vmin=0, vmax=3, aspect="auto",
                  interpolation="nearest", alpha=0.85)  # fmt: skip
        s = data[name]["stores"]
        ax.set_title(
            f"{name}: {s['sectors_per_warp']:g} sectors per warp store",
            color=INK, fontsize=FONT_SIZE,
        )  # fmt: skip
        ax.set_xlabel("column of out", color=INK, fontsize=FONT_SIZE)
        ax.set_ylabel("row of out", color=INK, fontsize=FONT_SIZE)
        ax.tick_params(colors=INK, labelsize=FONT_SIZE - 1)
        for spine in ax.spines.values():
            spine.set_color(INK)
    fig.tight_layout()
    return fig


def facts() -> dict[str, str]:
    """The numbers the pages state about the recorded transposes."""
    data = load_record()
    out = {"shape": f"{SHAPE[0]} × {SHAPE[1]}", "lanes": str(LANES)}
    for name in ("naive", "tiled"):
        for kind in ("loads", "stores"):
            s = data[name][kind]
            out[f"{name}.{kind}.sectors"] = f"{s['sectors_per_warp']:g}"
            out[f"{name}.{kind}.ideal"] = str(s["ideal"])
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:  # run plainly, it only reads the record
        print(f"wrote {write_record()}")
    for name, found in load_record().items():
        print(
            f"{name}: loads {found['loads']['sectors_per_warp']} and stores "
            f"{found['stores']['sectors_per_warp']} sectors per warp "
            f"(contiguous: {found['stores']['ideal']})"
        )
