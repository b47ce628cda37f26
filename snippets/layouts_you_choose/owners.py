"""Who holds which element: the layouts a Gluon kernel names, as pencil models.

Shown on docs/kernels/below-triton/layouts-you-choose.md. Each model maps a
tensor coordinate to where it lives: a (warp, lane, register) triple for a
register layout, an element offset for a shared-memory layout, a (lane,
column) cell for tensor memory. ``compiler.py`` asks Triton's own layout
objects the same question and records the answer as linear-layout bases in
``compiler_bases.json``; the tests check that model and compiler agree on
every element, and that they disagree for a deliberately wrong layout. This
file imports neither torch nor Triton, so the site build can run it.

The models cover the cases the page draws: blocked layouts on shapes that
are whole multiples of the layout's tile, their slices, NVMMA shared
layouts of 16-bit tiles, 32-bit tensor memory and Hopper's wgmma
accumulator. Anything else raises ValueError.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASES = Path(__file__).with_name("compiler_bases.json")
ARTIFACT_LAYOUTS = ROOT / "results" / "artifacts" / "gluon" / "layouts.json"

#: The layouts the page draws, as plain data (compiler.py builds the Gluon
#: object of each). Shapes are whole multiples of each layout's tile.
# --8<-- [start:specs]
EXAMPLE = {
    "size_per_thread": [1, 2],
    "threads_per_warp": [8, 4],
    "warps_per_cta": [1, 2],
    "order": [1, 0],
}  # an 8 x 16 tile
SPECS = {
    "blocked": {"kind": "blocked", **EXAMPLE, "shape": [8, 16]},
    "blocked-tall": {"kind": "blocked", **EXAMPLE, "shape": [16, 16]},
    "slice": {"kind": "slice", "dim": 1, "parent": EXAMPLE, "shape": [8]},
    "nvmma-128": {"kind": "nvmma", "swizzle": 128, "bits": 16, "shape": [8, 64]},
    "nvmma-64": {"kind": "nvmma", "swizzle": 64, "bits": 16, "shape": [8, 64]},
    "nvmma-none": {"kind": "nvmma", "swizzle": 0, "bits": 16, "shape": [8, 64]},
    "nvmma-a-tile": {"kind": "nvmma", "swizzle": 128, "bits": 16, "shape": [128, 64]},
    "nvmma-b-tile": {"kind": "nvmma", "swizzle": 128, "bits": 16, "shape": [64, 256]},
    "tmem": {"kind": "tmem", "block": [128, 256], "shape": [128, 256]},
    "tmem-m64": {"kind": "tmem", "block": [64, 64], "shape": [64, 64]},
    "tmem-regs": {"kind": "tmem_regs", "num_warps": 8, "shape": [128, 256]},
}
# --8<-- [end:specs]


def _radix(digits: list[int], radices: list[int], order: list[int]) -> int:
    """Mixed-radix number, the dimension order[0] fastest."""
    value, scale = 0, 1
    for d in order:
        value += digits[d] * scale
        scale *= radices[d]
    return value


# --8<-- [start:blocked]
def blocked_owner(spt, tpw, wpc, order, shape, coord) -> tuple[int, int, int]:
    """(warp, lane, register) of element ``coord`` in a blocked layout.
    Along each dimension a thread holds ``spt`` neighbours, ``tpw`` lanes
    sit side by side, then ``wpc`` warps: one tile. The tile repeats to
    cover the tensor, each repeat in new registers of the same thread."""
    tile = [s * t * w for s, t, w in zip(spt, tpw, wpc, strict=True)]
    reps = [n // t for n, t in zip(shape, tile, strict=True)]
    rep, warp, lane, reg = [], [], [], []
    for d, c in enumerate(coord):
        rep.append(c // tile[d])
        inside = c % tile[d]
        warp.append(inside // (spt[d] * tpw[d]))
        lane.append(inside // spt[d] % tpw[d])
        reg.append(inside % spt[d])
    per_tile = _radix([s - 1 for s in spt], spt, order) + 1  # registers per tile
    register = _radix(reg, spt, order) + per_tile * _radix(rep, reps, order)
    return _radix(warp, wpc, order), _radix(lane, tpw, order), register
    # --8<-- [end:blocked]


def blocked_map(spec: dict) -> dict[tuple, tuple[int, int, int]]:
    """Every element of ``spec["shape"]`` -> (warp, lane, register)."""
    keys = ("size_per_thread", "threads_per_warp", "warps_per_cta", "order")
    spt, tpw, wpc, order = (spec[k] for k in keys)
    shape = spec["shape"]
    tile = [s * t * w for s, t, w in zip(spt, tpw, wpc, strict=True)]
    if any(n % t for n, t in zip(shape, tile, strict=True)):
        raise ValueError(f"shape {shape} is not a multiple of the layout's tile {tile}")
    return {c: blocked_owner(spt, tpw, wpc, order, shape, c) for c in _coords(shape)}


def _coords(shape: list[int]):
    if len(shape) == 1:
        return [(i,) for i in range(shape[0])]
    return [(i, j) for i in range(shape[0]) for j in range(shape[1])]


# --8<-- [start:slice]
def slice_holders(spec: dict) -> dict[tuple, frozenset[tuple[int, int]]]:
    """A slice drops one dimension of its parent: element k is held by
    every (warp, lane) that holds a parent element with k in the kept
    dimension, so the threads spread along the dropped one share it."""
    dim, parent = spec["dim"], spec["parent"]
    tile = [
        s * t * w
        for s, t, w in zip(
            parent["size_per_thread"],
            parent["threads_per_warp"],
            parent["warps_per_cta"],
            strict=True,
        )
    ]
    shape = list(tile)
    shape[1 - dim] = spec["shape"][0]
    holders: dict[tuple, set] = {}
    for coord, (warp, lane, _) in blocked_map({**parent, "shape": shape}).items():
        holders.setdefault((coord[1 - dim],), set()).add((warp, lane))
    return {k: frozenset(v) for k, v in holders.items()}
    # --8<-- [end:slice]


# --8<-- [start:swizzle]
def nvmma_offset(swizzle: int, bits: int, shape: list[int], coord) -> int:
    """Element offset of (row, col) in an NVMMA shared tile. A swizzled row
    is ``swizzle`` bytes of 16-byte chunks; the chunk index is XORed with a
    phase that changes every 128 / swizzle rows, so the eight rows a
    wgmma or a TMA copy touches at once land in different banks. Wider
    tiles are stored as column blocks of that row width, one after another."""
    row, col = coord
    if swizzle == 0:
        return row * shape[1] + col
    vec = 128 // bits  # elements per 16-byte chunk
    width = swizzle * 8 // bits  # elements per swizzled row
    per_phase, max_phase = 128 // swizzle, swizzle // 16
    block, inside = divmod(col, width)
    phase = (row // per_phase) % max_phase
    chunk = (inside // vec) ^ phase
    return block * shape[0] * width + row * width + chunk * vec + inside % vec
    # --8<-- [end:swizzle]


def nvmma_map(spec: dict) -> dict[tuple, int]:
    shape = spec["shape"]
    width = spec["swizzle"] * 8 // spec["bits"]
    if spec["swizzle"] and shape[1] % width:
        raise ValueError(f"a {spec['swizzle']}-byte swizzle needs rows of {width}")
    return {
        c: nvmma_offset(spec["swizzle"], spec["bits"], shape, c) for c in _coords(shape)
    }


# --8<-- [start:tmem]
def tmem_cell(block_m: int, coord) -> tuple[int, int]:
    """(lane, column) of a 32-bit element in tensor memory. With 128 rows
    a row is a lane; with 64, a warp's 32 lanes take 16 rows each, so
    rows 16 and up skip to lane 32."""
    row, col = coord
    if block_m == 128:
        return row, col
    if block_m == 64:
        return row % 16 + 32 * (row // 16), col
    raise ValueError(f"block_m must be 64 or 128, got {block_m}")


def tmem_reg_owner(num_warps: int, coord) -> tuple[int, int, int]:
    """(warp, lane, register) after ``tcgen05.ld`` 32x32b of a 128-row
    accumulator: warp w may read lanes 32 * (w % 4) to 32 * (w % 4) + 31,
    so thread t of warp w gets row 32 * (w % 4) + t; with 8 warps, warps
    4-7 take the right half of the columns. One row per thread."""
    row, col = coord
    groups = num_warps // 4
    half = 256 // groups if groups > 1 else 1 << 30
    return row // 32 + 4 * (col // half), row % 32, col % half
    # --8<-- [end:tmem]


# --8<-- [start:wgmma]
def wgmma_owner(coord) -> tuple[int, int, int]:
    """(warp, lane, register) of Hopper's wgmma accumulator with warps
    stacked along M: warp w owns rows 16 w to 16 w + 15; lanes 4 r to
    4 r + 3 share a row, two adjacent columns each, every 8 columns."""
    row, col = coord
    warp, r = divmod(row, 16)
    lane = (r % 8) * 4 + (col % 8) // 2
    register = col % 2 + 2 * (r // 8) + 4 * (col // 8)
    return warp, lane, register
    # --8<-- [end:wgmma]


def model(spec: dict) -> dict:
    """The pencil model of any spec, element by element."""
    kind = spec["kind"]
    if kind == "blocked":
        return blocked_map(spec)
    if kind == "slice":
        return slice_holders(spec)
    if kind == "nvmma":
        return nvmma_map(spec)
    if kind == "tmem":
        return {c: tmem_cell(spec["block"][0], c) for c in _coords(spec["shape"])}
    if kind == "tmem_regs":
        return {c: tmem_reg_owner(spec["num_warps"], c) for c in _coords(spec["shape"])}
    if kind == "wgmma":
        return {c: wgmma_owner(c) for c in _coords(spec["shape"])}
    raise ValueError(f"unknown layout kind {kind!r}")


# --8<-- [start:from-bases]
def _xor(bases: list[list[int]], index: int) -> tuple[int, ...]:
    """The coordinate of one hardware index: XOR the basis of each set bit
    (a linear layout over the two-element field)."""
    out = [0] * len(bases[0]) if bases else [0]
    for bit, basis in enumerate(bases):
        if index >> bit & 1:
            out = [a ^ b for a, b in zip(out, basis, strict=True)]
    return tuple(out)


def register_map(bases: dict) -> dict[tuple, set]:
    """Element -> every (warp, lane, register) the compiler puts it in."""
    found: dict[tuple, set] = {}
    for w in range(1 << len(bases["warp"])):
        for lane in range(1 << len(bases["lane"])):
            for r in range(1 << len(bases["register"])):
                coord = tuple(
                    a ^ b ^ c
                    for a, b, c in zip(
                        _xor(bases["warp"], w),
                        _xor(bases["lane"], lane),
                        _xor(bases["register"], r),
                        strict=True,
                    )
                )
                found.setdefault(coord, set()).add((w, lane, r))
    return found
    # --8<-- [end:from-bases]


def compiler_view(spec_name: str, bases: dict | None = None) -> dict:
    """What the compiler reports for one spec, in the model's terms, from
    recorded bases (``compiler_bases.json``) or ``bases`` given."""
    spec = SPECS[spec_name] if spec_name in SPECS else triton_specs()[spec_name]
    bases = recorded()[spec_name] if bases is None else bases
    return view_from_bases(spec, bases)


def view_from_bases(spec: dict, bases: dict) -> dict:
    kind = spec["kind"]
    if kind == "nvmma":
        offsets = bases["offset"]
        return {_xor(offsets, o): o for o in range(1 << len(offsets))}
    if kind == "tmem":  # lanes a 64-row block leaves unused repeat others
        lanes, cols, cells = bases["rows"], bases["cols"], {}
        for lane in range(1 << len(lanes)):
            for col in range(1 << len(cols)):
                at = tuple(
                    a ^ b
                    for a, b in zip(_xor(lanes, lane), _xor(cols, col), strict=True)
                )
                cells[at] = min(cells.get(at, (lane, col)), (lane, col))
        return cells
    found = register_map(bases)
    if kind == "slice":
        return {c: frozenset((w, lane) for w, lane, _ in v) for c, v in found.items()}
    if any(len(v) > 1 for v in found.values()):
        raise ValueError(f"{spec['kind']} layout holds an element twice")
    return {c: next(iter(v)) for c, v in found.items()}


def mismatches(model_view: dict, compiler: dict, limit: int = 5) -> list[str]:
    """Where model and compiler disagree, a few lines; empty when they agree."""
    keys = sorted(set(model_view) | set(compiler))
    bad = [k for k in keys if model_view.get(k) != compiler.get(k)]
    return [
        f"{k}: model {model_view.get(k)}, compiler {compiler.get(k)}"
        for k in bad[:limit]
    ]


@cache
def recorded() -> dict:
    """The compiler's bases, as compiler.py recorded them."""
    return json.loads(BASES.read_text(encoding="utf-8"))["bases"]


# --8<-- [start:parse-ttgir]
_FIELD = re.compile(r"(\w+) = (\[[^\]]*\]|\d+)")


def parse_layout(text: str) -> dict:
    """A TTGIR layout attribute as plain data: ``#ttg.blocked<{...}>`` or
    ``#ttg.nvidia_mma<{...}>`` -> the fields, by name."""
    kind = re.match(r"#ttg\.(\w+)<", text)
    if kind is None or kind[1] not in ("blocked", "nvidia_mma"):
        raise ValueError(f"not a blocked or nvidia_mma layout: {text[:60]!r}")
    fields = {k: json.loads(v) for k, v in _FIELD.findall(text)}
    return {"kind": kind[1], **fields}
    # --8<-- [end:parse-ttgir]


def artifact_layouts() -> dict:
    """layouts.json, checked: targets -> builds -> alias -> attribute text."""
    data = json.loads(ARTIFACT_LAYOUTS.read_text(encoding="utf-8"))
    targets = data.get("targets") if isinstance(data, dict) else None
    if not isinstance(targets, dict) or not targets:
        raise ValueError(f"{ARTIFACT_LAYOUTS.name}: no targets")
    for target, builds in targets.items():
        for build, aliases in builds.items():
            if not isinstance(aliases, dict) or not all(
                isinstance(v, str) for v in aliases.values()
            ):
                raise ValueError(f"{ARTIFACT_LAYOUTS.name}: {target}/{build} malformed")
    return targets


TRITON_BUILD = "v2-bf16-tma-persistent"


def triton_specs() -> dict:
    """The layouts Triton picked for version 2 on sm_90a, as specs: its
    wgmma accumulator (``#mma``) and its epilogue layout (``#blocked``)."""
    picked = artifact_layouts()["sm_90a"][TRITON_BUILD]
    mma, blocked = parse_layout(picked["mma"]), parse_layout(picked["blocked"])
    return {
        "triton-mma": {
            "kind": "wgmma",
            "warps_per_cta": mma["warpsPerCTA"],
            "instr_shape": mma["instrShape"],
            "shape": [128, 256],
        },
        "triton-blocked": {
            "kind": "blocked",
            "size_per_thread": blocked["sizePerThread"],
            "threads_per_warp": blocked["threadsPerWarp"],
            "warps_per_cta": blocked["warpsPerCTA"],
            "order": blocked["order"],
            "shape": [128, 256],
        },
    }


# --8<-- [start:banks]
def bank_groups(spec_name: str, chunk: int = 0, rows: int = 8) -> int:
    """Distinct 16-byte bank groups (of the eight a 128-byte line has) that
    ``rows`` rows hit when each reads its logical chunk ``chunk``: eight
    means one pass, one means the reads queue up eight deep."""
    spec = SPECS[spec_name]
    vec = 128 // spec["bits"]
    view = model(spec)
    bytes_per = spec["bits"] // 8
    return len({view[(r, chunk * vec)] * bytes_per // 16 % 8 for r in range(rows)})
    # --8<-- [end:banks]


#: Shared memory: 32 banks of 4 bytes (CUDA C++ Programming Guide, "Shared
#: Memory", compute capability 5.x and up).
BANKS, BANK_BYTES = 32, 4
#: Tensor memory's lanes per SM (PTX ISA, "Tensor Memory"; kernels/devices.py
#: holds its size).
TMEM_LANES = 128
PROBE = (5, 11)
TALL_PROBE = (12, 9)
SWIZZLE_PROBE = (3, 17)
TMEM_ROW = 20


def _owner(view, coord) -> str:
    warp, lane, reg = view[coord]
    return f"warp {warp}, lane {lane}, register {reg}"


def _exercises() -> dict[str, str]:
    tall = model(SPECS["blocked-tall"])
    spec = SPECS["nvmma-128"]
    offset = nvmma_offset(spec["swizzle"], spec["bits"], spec["shape"], SWIZZLE_PROBE)
    width = spec["swizzle"] * 8 // spec["bits"]
    return {
        "ex1.coord": str(TALL_PROBE),
        "ex1.owner": _owner(tall, TALL_PROBE),
        "ex1.regs": str(1 + max(r for _, _, r in tall.values())),
        "ex2.coord": str(SWIZZLE_PROBE),
        "ex2.offset": str(offset),
        "ex2.slot": str((offset - SWIZZLE_PROBE[0] * width) // (128 // spec["bits"])),
        "ex2.logical": str(SWIZZLE_PROBE[1] // (128 // spec["bits"])),
        "ex3.row": str(TMEM_ROW),
        "ex3.lane": str(tmem_cell(64, (TMEM_ROW, 0))[0]),
        "ex3.per_quarter": str(
            sum(1 for r in range(64) if tmem_cell(64, (r, 0))[0] < 32)
        ),
    }


def facts() -> dict[str, str]:
    """Every value the page states, by name."""
    from kernels.devices import TARGETS

    view = model(SPECS["blocked"])
    rows, cols = SPECS["blocked"]["shape"]
    picked = triton_specs()
    mma, blocked = model(picked["triton-mma"]), model(picked["triton-blocked"])
    first = sorted((r, c) for c, (w, lane, r) in mma.items() if (w, lane) == (0, 0))
    tmem_cols = TARGETS["sm_100a"].tensor_memory_bytes_per_sm // (TMEM_LANES * 4)
    gluon = artifact_layouts()["sm_90a"]["gluon-bf16-tma-persistent"]["mma"]
    same = parse_layout(gluon) == parse_layout(
        artifact_layouts()["sm_90a"][TRITON_BUILD]["mma"]
    )
    return {
        "tile": f"{rows} × {cols}",
        "threads": str(32 * len({w for w, _, _ in view.values()})),
        "regs": str(1 + max(r for _, _, r in view.values())),
        "probe": str(PROBE),
        "probe_owner": _owner(view, PROBE),
        "slice_sharing": str(len(model(SPECS["slice"])[(0,)])),
        "banks_plain": str(bank_groups("nvmma-none")),
        "banks_swizzled": str(bank_groups("nvmma-128")),
        "tmem_columns": str(tmem_cols),
        "tmem_lanes": str(TMEM_LANES),
        "acc_shape": "{} × {}".format(*SPECS["tmem"]["shape"]),
        "banks": str(BANKS),
        "bank_bytes": str(BANK_BYTES),
        "line_bytes": str(BANKS * BANK_BYTES),
        "row_elems": str(BANKS * BANK_BYTES // 2),
        "acc_columns": str(SPECS["tmem"]["shape"][1]),
        "tmem_regs": str(1 + max(r for _, _, r in model(SPECS["tmem-regs"]).values())),
        "triton_mma_regs": str(1 + max(r for _, _, r in mma.values())),
        "triton_mma_first": ", ".join(str(c) for _, c in first[:4]),
        "triton_blocked_vector": str(picked["triton-blocked"]["size_per_thread"][1]),
        "triton_blocked_bytes": str(picked["triton-blocked"]["size_per_thread"][1] * 2),
        "triton_blocked_regs": str(1 + max(r for _, _, r in blocked.values())),
        "gluon_same_mma": "the same" if same else "a different",
        **_exercises(),
    }


if __name__ == "__main__":
    view = model(SPECS["blocked"])
    print(f"BlockedLayout{tuple(EXAMPLE.values())} on {SPECS['blocked']['shape']}:")
    for r in range(3):
        print(
            "  row",
            r,
            " ".join(
                f"{w}.{lane}.{reg}" for w, lane, reg in (view[(r, c)] for c in range(8))
            ),
            "...",
        )
    print("element", PROBE, "->", _owner(view, PROBE))
    for name in ("nvmma-none", "nvmma-128"):
        print(f"{name}: 8 rows reading chunk 0 hit {bank_groups(name)} bank group(s)")
    print(
        "compiler agrees on",
        sum(not mismatches(model(s), compiler_view(n)) for n, s in SPECS.items()),
        "of",
        len(SPECS),
        "layouts",
    )
