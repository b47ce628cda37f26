"""What the compiled matmul kernel for sm_90a uses, read from its artifact.

Taught on docs/kernels/matrix-multiplication/tiled-matmul.md (the Hopper
tensor-core lesson reuses the HGMMA reading). The artifact,
results/artifacts/matmul.sm_90a.json, is written by
`python -m scripts.artifacts`, which compiles kernels/matmul/ for Hopper
without a GPU, and read by evidence/artifacts.py (load, staleness, the
"not compiled yet" note, the HGMMA shape). Evidence kind: compiled
artifact. It shows which instructions and how many registers and bytes of
shared memory the code uses; it says nothing about speed.

Run it as a script (`python -m snippets.lib.matmul_artifacts`) to
print the facts.
"""

from pathlib import Path

from evidence.artifacts import (
    THREADS_PER_WARP,
    ArtifactError,
    artifact_path,
    hgmma_shape,
    load,
    missing_note,
    opcodes_text,
)
from evidence.tables import markdown_table
from snippets.lib.program_order import H200_SMS, wave_reading, wave_table

ARTIFACT = artifact_path("matmul")

# --8<-- [start:sm90-limits]
# CUDA C++ Programming Guide, "Technical Specifications per Compute
# Capability", column 9.0 (Hopper): 64K 32-bit registers and up to 228 KB
# of shared memory per SM, at most 227 KB of it for one thread block.
SM90_REGISTERS_PER_SM = 64 * 1024
SM90_SHARED_BYTES_PER_SM = 228 * 1024
SM90_SHARED_BYTES_PER_BLOCK = 227 * 1024
WARPS_PER_WARPGROUP = 4  # wgmma runs on four warps together


def programs_per_sm(registers: int, num_warps: int, shared_bytes: int) -> int:
    """How many programs (thread blocks) of this build fit on one SM at
    once, counting only registers and shared memory."""
    threads = num_warps * THREADS_PER_WARP
    by_registers = SM90_REGISTERS_PER_SM // (registers * threads)
    if shared_bytes == 0:
        return by_registers
    return min(by_registers, SM90_SHARED_BYTES_PER_SM // shared_bytes)
    # --8<-- [end:sm90-limits]


def facts() -> dict[str, str]:
    """The compute capability 9.0 limits the page states, formatted:
    'register-file' (bytes of registers per SM), 'registers',
    'shared-per-sm' and 'warpgroup'; and the bf16 build's tile (tile.*)."""
    return {
        "register-file": f"{SM90_REGISTERS_PER_SM * 4 // 1024} KiB",
        "registers": f"{SM90_REGISTERS_PER_SM // 1024}K 32-bit registers",
        "shared-per-sm": f"{SM90_SHARED_BYTES_PER_SM // 1024} KB",
        "warpgroup": f"{WARPS_PER_WARPGROUP} warps",
        **tile_facts(),
    }


_TILE_KEYS = ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")


def load_artifact(path: Path = ARTIFACT) -> dict | None:
    """The matmul artifact (every build checked), None when absent."""
    return load("matmul", path)


def half_precision_build(artifact: dict, path: Path = ARTIFACT) -> dict:
    """The bf16 build the page explains (aligned pointers preferred)."""
    candidates = [
        build
        for build in artifact["builds"]
        if build["signature"].get("a_ptr") == "*bf16"
    ]
    if not candidates:
        raise ArtifactError(f"{path}: no build with a_ptr of type *bf16")
    candidates.sort(key=lambda b: "a_ptr" not in b.get("aligned", []))
    build = candidates[0]
    missing = [key for key in _TILE_KEYS if key not in build["constexprs"]]
    if missing:
        raise ArtifactError(
            f"{path}: build {build['build']!r} constexprs lack {missing}"
        )
    return build


# --8<-- [start:matrix-instructions]
def matrix_instructions(build: dict) -> dict[str, int]:
    """SASS opcodes of Hopper's warpgroup matrix multiply (HGMMA, from
    PTX wgmma.mma_async) and the older per-warp one (HMMA), with counts."""
    return {
        opcode: count
        for opcode, count in build["sass_opcodes"].items()
        if opcode.startswith(("HGMMA", "HMMA"))
    }
    # --8<-- [end:matrix-instructions]


def _tile(build: dict) -> tuple[int, int, int, int]:
    return tuple(build["constexprs"][key] for key in _TILE_KEYS)


def tile_facts(path: Path = ARTIFACT) -> dict[str, str]:
    """The compiled bf16 build's tile, program order and launch shape."""
    build = half_precision_build(load_artifact(path), path)
    bm, bn, bk, group = _tile(build)
    return {
        "tile.shape": f"{bm} × {bn} × {bk}",
        "tile.group": f"{group}",
        "tile.warps": f"{build['num_warps']}",
        "tile.stages": f"{build['num_stages']}",
    }


def facts_table(path: Path = ARTIFACT) -> str:
    """Markdown: each fact the page reads from the bf16 build."""
    artifact = load_artifact(path)
    if artifact is None:
        return missing_note("matmul")
    build = half_precision_build(artifact, path)
    bm, bn, bk, _ = _tile(build)
    threads = build["num_warps"] * THREADS_PER_WARP
    matrix = matrix_instructions(build)
    wgmma = {
        op: n for op, n in build["ptx_opcodes"].items() if op.startswith("wgmma.mma")
    }
    spills = build["spill_store_bytes"] + build["spill_load_bytes"]
    per_sm = programs_per_sm(
        build["registers"], build["num_warps"], build["shared_bytes"]
    )

    listing = opcodes_text
    rows = [
        ("compiled for", f"`{artifact['target']}`, Triton "
         f"{artifact['triton_version']}, build `{build['build']}`"),
        ("tile, warps, stages", f"{bm} × {bn} × {bk}, {build['num_warps']} warps "
         f"({threads} threads), {build['num_stages']} stages"),
        ("PTX matrix instructions", listing(wgmma)),
        ("SASS matrix instructions", listing(matrix)),
        ("registers per thread", f"{build['registers']} "
         f"({build['registers'] * threads:,} per program of the SM's "
         f"{SM90_REGISTERS_PER_SM:,})"),
        ("shared memory per program", f"{build['shared_bytes']:,} bytes "
         f"({build['shared_bytes'] / 1024:g} KiB of the SM's "
         f"{SM90_SHARED_BYTES_PER_SM // 1024} KiB)"),
        ("register spills", "none" if spills == 0 else
         f"{build['spill_store_bytes']:,} bytes stored, "
         f"{build['spill_load_bytes']:,} bytes loaded"),
        ("programs per SM (registers and shared memory)", str(per_sm)),
    ]  # fmt: skip
    # Not escaped: the artifact's strings sit inside code spans, where an
    # entity would show literally.
    return markdown_table(["fact", "value"], rows, escape=False)


def facts_reading(path: Path = ARTIFACT) -> str:
    """What the facts say, as sentences generated from the numbers."""
    artifact = load_artifact(path)
    if artifact is None:
        return "There is no compiled artifact to read yet."
    build = half_precision_build(artifact, path)
    bm, bn, bk, _ = _tile(build)
    warpgroups = build["num_warps"] // WARPS_PER_WARPGROUP
    sentences = []
    shapes = {
        op: hgmma_shape(op)
        for op in matrix_instructions(build)
        if hgmma_shape(op) is not None
    }
    if not shapes:
        sentences.append(
            "The SASS has no HGMMA instruction: this build does not use "
            "Hopper's warpgroup matrix multiply, so the tensor-core peak "
            "behind the ridge point is the wrong yardstick for it until "
            "the tile shape or dtype is fixed."
        )
    for opcode, (m, n, k) in shapes.items():
        count = build["sass_opcodes"][opcode]
        covers = m * warpgroups == bm and n == bn and count * k == bk
        sentences.append(
            f"Each `{opcode}` multiplies a {m} × {k} slice of A by a "
            f"{k} × {n} slice of B for one warpgroup of "
            f"{WARPS_PER_WARPGROUP} warps. With {warpgroups} warpgroups "
            f"and {count} of them per K step, they cover "
            f"{m * warpgroups} × {n} × {count * k} "
            + (
                f"— exactly one {bm} × {bn} × {bk} tile step."
                if covers
                else f"— not the {bm} × {bn} × {bk} tile step, so the loop "
                "was unrolled or split differently; read the excerpt."
            )
        )
    threads = build["num_warps"] * THREADS_PER_WARP
    acc_registers = bm * bn // threads  # one 32-bit register per float32
    sentences.append(
        f"The float32 accumulator alone takes {acc_registers} of the "
        f"{build['registers']} registers each thread holds."
    )
    spills = build["spill_store_bytes"] + build["spill_load_bytes"]
    sentences.append(
        "Nothing spills to local memory."
        if spills == 0
        else f"The build spills {spills:,} bytes to local memory, which "
        "costs extra memory traffic inside the K loop."
    )
    per_sm = programs_per_sm(
        build["registers"], build["num_warps"], build["shared_bytes"]
    )
    sentences.append(
        f"Registers and shared memory allow {per_sm} program"
        f"{'s' if per_sm != 1 else ''} per SM, so on the H200's {H200_SMS} "
        f"SMs about {per_sm * H200_SMS} programs run at once."
    )
    return " ".join(sentences)


def _global_loads(build: dict) -> dict[str, int]:
    """SASS global loads: plain (LDG), async copies into shared memory
    (LDGSTS, cp.async) and tensor-memory-accelerator loads (UTMALDG)."""
    return {
        op: n
        for op, n in build["sass_opcodes"].items()
        if op.startswith(("LDG.", "LDGSTS", "UTMALDG"))
    }


def builds_table(path: Path = ARTIFACT) -> str:
    """Markdown: every build in the artifact side by side."""
    artifact = load_artifact(path)
    if artifact is None:
        return missing_note("matmul")
    half_precision_build(artifact, path)  # validates every build's fields
    header = [
        "build",
        "global loads in the code (SASS)",
        "matrix instructions (SASS)",
        "registers",
        "shared memory",
        "spills (stored + loaded)",
    ]
    rows = []
    for build in artifact["builds"]:
        spills = build["spill_store_bytes"] + build["spill_load_bytes"]
        rows.append(
            (
                f"`{build['build']}`",
                opcodes_text(_global_loads(build)),
                opcodes_text(matrix_instructions(build)),
                build["registers"],
                f"{build['shared_bytes'] / 1024:g} KiB",
                f"{spills:,} bytes",
            )
        )
    # Not escaped, as in facts_table: names and opcodes are code spans.
    return markdown_table(header, rows, "lllrrr", escape=False)


def alignment_reading(path: Path = ARTIFACT) -> str:
    """Compare the bf16 builds with and without the 16-byte alignment hint,
    from the numbers; empty when the artifact lacks one of them."""
    artifact = load_artifact(path)
    if artifact is None:
        return ""
    half_precision_build(artifact, path)
    bf16 = [b for b in artifact["builds"] if b["signature"].get("a_ptr") == "*bf16"]
    aligned = [b for b in bf16 if "a_ptr" in b.get("aligned", [])]
    unaligned = [b for b in bf16 if "a_ptr" not in b.get("aligned", [])]
    if not aligned or not unaligned:
        return ""
    good, bad = aligned[0], unaligned[0]
    good_loads, bad_loads = _global_loads(good), _global_loads(bad)
    if good_loads == bad_loads:
        return (
            f"The `{good['build']}` and `{bad['build']}` builds issue the same "
            "global loads: here the alignment hint changes nothing."
        )
    spills = bad["spill_store_bytes"] + bad["spill_load_bytes"]
    good_spills = good["spill_store_bytes"] + good["spill_load_bytes"]
    spill_text = (
        f" and spills {spills:,} bytes to local memory" if spills > good_spills else ""
    )
    return (
        f"The same source, compiled without the hint that the pointers are "
        f"16-byte aligned (`{bad['build']}`), loads with "
        f"{opcodes_text(bad_loads)} where the aligned build uses "
        f"{opcodes_text(good_loads)} (instructions in the code, not "
        f"executions); it takes {bad['registers']} registers instead of "
        f"{good['registers']}{spill_text}. The useful values are the same; "
        "only the instructions that fetch them differ. That is the same kind "
        "of claim as coalescing, read from a compiled artifact rather than a "
        "pencil, and like it, it says nothing about time."
    )


def sass_excerpt(path: Path = ARTIFACT, before: int = 2, after: int = 4) -> str:
    """A fenced block: the SASS around the first matrix instruction."""
    artifact = load_artifact(path)
    if artifact is None:
        return missing_note("matmul")
    lines = half_precision_build(artifact, path)["sass_excerpt"]
    first = next(
        (i for i, line in enumerate(lines) if "HGMMA" in line or "HMMA" in line),
        None,
    )
    if first is None:
        return "The SASS excerpt has no matrix instruction."
    window = lines[max(0, first - before) : first + after + 1]
    return "```text\n" + "\n".join(window) + "\n```"


def kernel_wave(part: str = "table", path: Path = ARTIFACT) -> str:
    """The program-order table (or its reading) for the compiled tile and
    the number of programs the artifact says run at once."""
    artifact = load_artifact(path)
    if artifact is None:
        return "(needs the compiled artifact)"
    build = half_precision_build(artifact, path)
    bm, bn, _, group = _tile(build)
    per_sm = programs_per_sm(
        build["registers"], build["num_warps"], build["shared_bytes"]
    )
    programs = max(1, per_sm) * H200_SMS
    if part == "table":
        return wave_table(bm, bn, group, programs)
    if part == "reading":
        return wave_reading(bm, bn, group, programs)
    if part == "programs":
        return f"{programs:,}"
    raise ValueError(f"part must be 'table', 'reading' or 'programs', got {part!r}")


if __name__ == "__main__":
    print(tile_facts())
    print(facts_table())
    print(facts_reading())
    print(sass_excerpt())
    print(builds_table())
    print(alignment_reading())
    print(kernel_wave())
    print(kernel_wave("reading"))
