"""Who writes each buffer, who reads it, and how long it must live.

Shown on docs/kernels/work-mapping/layouts-strides-offsets.md. A pencil
model of a K loop that stages tiles of A and B through a ring of
shared-memory buffers: a producer (the loads, TMA or cp.async) runs ahead of
a consumer (the matrix instructions). The buffer count is checked against
the compiled matmul's shared memory (results/artifacts/matmul.sm_90a.json).
"""

from __future__ import annotations

from pathlib import Path

from evidence.artifacts import artifact_path, load
from evidence.tables import markdown_table

ARTIFACT = artifact_path("matmul")


# --8<-- [start:ring]
def schedule(k_steps: int, buffers: int, lead: int) -> list[tuple[int, int, int]]:
    """(k, buffer, step it is loaded at) for each K step. The consumer
    reads step k's tile at time k; the producer loads it `lead` steps
    earlier, into buffer k % buffers."""
    if buffers < 1 or lead < 0 or k_steps < 1:
        raise ValueError("k_steps and buffers must be >= 1, lead >= 0")
    return [(k, k % buffers, max(0, k - lead)) for k in range(k_steps)]


def overwritten_early(k_steps: int, buffers: int, lead: int) -> list[int]:
    """K steps whose tile is overwritten before the consumer reads it: the
    next load into the same buffer happens before time k."""
    bad = []
    for k, _, _ in schedule(k_steps, buffers, lead):
        successor = k + buffers  # the next tile to use this buffer
        # Loading it at time k or before clobbers tile k (at k: a race).
        if successor < k_steps and max(0, successor - lead) <= k:
            bad.append(k)
    return bad
    # --8<-- [end:ring]


def ring_table(k_steps: int = 6, buffers: int = 3) -> str:
    """Markdown: the safe lead (buffers - 1) against one step too far."""
    header = ["lead (steps ahead)", "K steps overwritten before use"]
    rows = []
    for lead in (buffers - 1, buffers):
        bad = overwritten_early(k_steps, buffers, lead)
        rows.append((lead, ", ".join(map(str, bad)) if bad else "none"))
    return f"{buffers} buffers, {k_steps} K steps:\n\n" + markdown_table(
        header, rows, "rl"
    )


# --8<-- [start:stage-bytes]
def stage_bytes(block_m: int, block_n: int, block_k: int, itemsize: int) -> int:
    """One stage of the ring: a BLOCK_M x BLOCK_K tile of A and a
    BLOCK_K x BLOCK_N tile of B."""
    return (block_m * block_k + block_k * block_n) * itemsize


def buffers_in_build(build: dict) -> float:
    """Shared memory the compiler reported over one stage's bytes."""
    c = build["constexprs"]
    itemsize = {"*bf16": 2, "*fp16": 2, "*fp32": 4}[build["signature"]["a_ptr"]]
    one = stage_bytes(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], itemsize)
    return build["shared_bytes"] / one
    # --8<-- [end:stage-bytes]


def buffers_table(path: Path = ARTIFACT) -> str:
    """Markdown: each aligned matmul build's stages against its buffers."""
    artifact = load("matmul", path)
    header = ["build", "tile", "num_stages", "shared memory", "one stage", "buffers"]
    rows = []
    for b in artifact["builds"]:
        if "a_ptr" not in b.get("aligned", []):
            continue
        c = b["constexprs"]
        itemsize = {"*bf16": 2, "*fp16": 2, "*fp32": 4}[b["signature"]["a_ptr"]]
        one = stage_bytes(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], itemsize)
        rows.append(
            (
                f"`{b['build']}`",
                f"{c['BLOCK_M']} × {c['BLOCK_N']} × {c['BLOCK_K']}",
                b["num_stages"],
                f"{b['shared_bytes']:,} B",
                f"{one:,} B",
                f"{buffers_in_build(b):g}",
            )
        )
    return markdown_table(header, rows, "llrrrr", escape=False)


if __name__ == "__main__":
    print(ring_table())
    print(buffers_table())
