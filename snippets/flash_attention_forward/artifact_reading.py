"""What the compiled attention kernel shows, read from its artifact.

Shown on docs/kernels/attention/flash-attention-forward.md. Reads
results/artifacts/attention.sm_90a.json through the generic reader in
snippets/lib/hopper_artifacts.py, names each warpgroup matrix
instruction by the product it computes, and gives the page its counts
through facts(). Evidence kind: compiled
artifact (instructions in the code and resources, never time).
"""

from __future__ import annotations

from evidence.artifacts import HGMMA_SHAPE as HGMMA
from evidence.artifacts import build

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


def opcode_count(b: dict, prefix: str) -> int:
    """How many instructions of the build start with `prefix`."""
    return sum(n for o, n in b["sass_opcodes"].items() if o.startswith(prefix))


def math_ops(b: dict) -> dict[str, int]:
    """The build's matrix and exp2 instructions with their counts."""
    return {
        o: n
        for o, n in b["sass_opcodes"].items()
        if o.startswith(("HGMMA", "MUFU.EX2"))
    }


def product_facts(tag: str, b: dict) -> dict[str, str]:
    """The HGMMA facts of one build, keyed TAG.scores / TAG.output / TAG.both."""
    out = {}
    for p in products(b):
        role = {"scores S = Q K^T": "scores", "output O += P V": "output"}.get(
            p["product"], "both"
        )
        out[f"{tag}.{role}.instr"] = f"`{p['opcode']}` × {p['count']}"
        out[f"{tag}.{role}.tile"] = f"{p['m']} queries × {p['n']}"
        out[f"{tag}.{role}.k"] = f"{p['k']}"
        out[f"{tag}.{role}.per-step"] = f"{p['per_step']}"
        out[f"{tag}.{role}.depth"] = (
            f"{p['per_step']} × {p['k']} = {p['per_step'] * p['k']}"
        )
    for key in ("BLOCK_M", "BLOCK_N", "BLOCK_D"):
        out[f"{tag}.{key}"] = f"{b['constexprs'][key]}"
    return out


def facts(v1="bf16-d128", v2="v2-bf16-d128", causal="v2-bf16-d128-causal"):
    """Every artifact value the page states, by name (v1, v2, causal)."""
    a, b, c = (build("attention", n) for n in (v1, v2, causal))
    out = {**product_facts("v1", a), **product_facts("v2", b)}
    for tag, x in (("v1", a), ("v2", b), ("causal", c)):
        out[f"{tag}.registers"] = f"{x['registers']}"
        out[f"{tag}.shared-kib"] = f"{x['shared_bytes'] / 1024:g} KiB"
        for prefix in ("MUFU.EX2", "FFMA", "FMUL"):
            out[f"{tag}.{prefix}"] = f"{opcode_count(x, prefix)}"
    out["max-registers"] = f"{MAX_REGISTERS_PER_THREAD}"
    return out


if __name__ == "__main__":
    for name in ("bf16-d128", "v2-bf16-d128"):
        for p in products(build("attention", name)):
            print(name, p["opcode"], "x", p["count"], "->", p["product"])
