"""What the compiled attention kernel shows, read from its artifact.

Shown on docs/kernels/attention/flash-attention-forward.md. Reads
results/artifacts/attention.sm_90a.json through the generic reader in
snippets/lib/hopper_artifacts.py and explains each warpgroup
matrix instruction by the product it computes. Evidence kind: compiled
artifact (instructions in the code and resources, never time).
"""

from __future__ import annotations

from evidence.artifacts import HGMMA_SHAPE as HGMMA
from evidence.artifacts import build, load, missing_note

#: The kernel folds keys in two loops (mask-free, then masked): each loop's
#: body is compiled once, so each product appears twice in the code.
KEY_LOOPS = 2
#: CUDA C++ Programming Guide, technical specifications, compute
#: capability 9.0: at most 255 32-bit registers per thread.
MAX_REGISTERS_PER_THREAD = 255


# --8<-- [start:products]
def products(b: dict) -> list[dict]:
    """Each HGMMA shape of a build, named by the product it serves: n is
    BLOCK_N for the scores (Q K^T, k along D) and BLOCK_D for the output
    (P V, k along the keys); one shape serves both when they are equal."""
    c = b["constexprs"]
    out = []
    for opcode, count in sorted(b["sass_opcodes"].items()):
        match = HGMMA.match(opcode)
        if not match:
            continue
        m, n, k = (int(g) for g in match.groups())
        if n == c["BLOCK_N"] == c["BLOCK_D"]:
            product, depth = "scores and the output", c["BLOCK_D"] + c["BLOCK_N"]
        elif n == c["BLOCK_N"]:
            product, depth = "scores S = Q K^T", c["BLOCK_D"]
        else:
            product, depth = "output O += P V", c["BLOCK_N"]
        per_step = count // KEY_LOOPS
        out.append({
            "opcode": opcode, "count": count, "m": m, "n": n, "k": k,
            "product": product, "per_step": per_step, "depth": depth,
            "covers": per_step * k == depth,  # one key step per loop body
            "rows": m * b["num_warps"] // 4,  # warpgroups stack along queries
        })  # fmt: skip
    return out
    # --8<-- [end:products]


def products_text(name: str = "bf16-d128") -> str:
    """Sentences: what each HGMMA of the build computes."""
    if load("attention") is None:
        return missing_note("attention")
    b = build("attention", name)
    found = products(b)
    if not found:
        return f"The `{name}` build has no HGMMA: it does not use wgmma."
    parts = [
        f"`{p['opcode']}` × {p['count']} computes the {p['product']}, "
        f"{p['m']} queries × {p['n']} per warpgroup and instruction, "
        f"{p['k']} deep: {p['per_step']} per key step, "
        f"{p['per_step']} × {p['k']} = {p['per_step'] * p['k']}"
        for p in found
    ]
    text = f"In `{name}`, " + "; ".join(parts) + "."
    if not all(p["covers"] for p in found):
        return text + (
            " The counts do not match one key step per loop body: the "
            "compiler unrolled or split the loops differently; read the SASS."
        )
    c = b["constexprs"]
    return text + (
        f" That is one {c['BLOCK_M']} × {c['BLOCK_N']} key step per loop body "
        f"(the depths add up to D = {c['BLOCK_D']} for the scores and "
        f"{c['BLOCK_N']} keys for the output), and the loop body is compiled "
        "once for the mask-free keys and once for the masked ones."
    )


def versions_text(v1: str = "bf16-d128", v2: str = "v2-bf16-d128") -> str:
    """Sentences: version 2's build against version 1's, from the numbers."""
    if load("attention") is None:
        return missing_note("attention")
    names = [b["build"] for b in load("attention")["builds"]]
    if v2 not in names:
        return "Version 2's build is not in the artifact yet."
    a, b = build("attention", v1), build("attention", v2)

    def count(x, prefix):
        return sum(n for o, n in x["sass_opcodes"].items() if o.startswith(prefix))

    return (
        f"Version 2's key block is {b['constexprs']['BLOCK_N']} wide against "
        f"{a['constexprs']['BLOCK_N']}. Its code has {count(b, 'MUFU.EX2')} "
        f"`MUFU.EX2` and {count(b, 'FFMA')} `FFMA` (version 1: "
        f"{count(a, 'MUFU.EX2')} and {count(a, 'FFMA')}, with "
        f"{count(a, 'FMUL')} `FMUL`): "
        + (
            "as many multiply-adds as exponentials, the folded scale "
            "`exp2(qk * scale - m)` as one `FFMA` each. "
            if count(b, "FFMA") >= count(b, "MUFU.EX2")
            else "fewer multiply-adds than exponentials, so the fold is not "
            "one instruction per exponential here. "
        )
        + f"It holds {b['registers']} registers per thread against "
        f"{a['registers']}"
        + (
            f" (the limit is {MAX_REGISTERS_PER_THREAD} per thread)"
            if b["registers"] >= MAX_REGISTERS_PER_THREAD
            else ""
        )
        + f" and {b['shared_bytes'] / 1024:g} KiB of shared "
        f"memory against {a['shared_bytes'] / 1024:g} KiB; "
        + (
            "nothing spills."
            if b["spill_store_bytes"] + b["spill_load_bytes"] == 0
            else f"it spills {b['spill_store_bytes'] + b['spill_load_bytes']:,} bytes."
        )
    )


def causal_text(full: str = "v2-bf16-d128", causal: str = "v2-bf16-d128-causal"):
    """Registers of a causal build against the full one."""
    if load("attention") is None:
        return missing_note("attention")
    a, b = build("attention", full), build("attention", causal)

    def math_ops(x):
        return {
            o: n
            for o, n in x["sass_opcodes"].items()
            if o.startswith(("HGMMA", "MUFU.EX2"))
        }

    sentence = (
        f"The causal build `{causal}` takes {b['registers']} registers per "
        f"thread against {a['registers']} for full attention"
    )
    if math_ops(a) == math_ops(b):
        more = "selects and registers" if b["registers"] > a["registers"] else "selects"
        return sentence + (
            ", with the same matrix and exp2 instructions: the diagonal mask "
            f"costs {more}, not tensor-core work."
        )
    return sentence + "; its matrix or exp2 instructions differ too."


if __name__ == "__main__":
    print(products_text())
    print(products_text("v2-bf16-d128"))
    print(versions_text())
    print(causal_text())
