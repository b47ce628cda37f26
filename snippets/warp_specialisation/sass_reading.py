"""What the compiled attention says about overlap and warp specialisation
(lesson: Warp specialisation and the Hopper pipeline). Evidence kind:
compiled artifact, read from results/artifacts/ (``python -m
scripts.artifacts attention`` writes them); never speed.
"""

from __future__ import annotations

import evidence

ARTIFACTS = evidence.RESULTS_DIR / "artifacts"
OVERLAP = "v4-bf16-d128-overlap"
SPECIALISED = "v4-bf16-d128-warp-specialized"


def record(build: str, target: str) -> dict:
    """One build of the attention artifact for one target."""
    data = evidence.read("artifact", ARTIFACTS / f"attention.{target}.json").data
    (found,) = [r for r in data["builds"] if r["build"] == build]
    return found


def matrix_loops(build: str, target: str) -> list[dict]:
    """The build's loops that run matrix instructions: its key-block loops."""
    prefixes = ("HGMMA", "UTCHMMA", "HMMA")
    return [
        loop
        for loop in record(build, target)["sass_loops"]
        if any(op.startswith(prefixes) for op in loop["opcodes"])
    ]


def waits(build: str, target: str) -> list[str]:
    """The distinct warpgroup waits inside the key-block loops."""
    return sorted({w for loop in matrix_loops(build, target) for w in loop["waits"]})


def register_moves(build: str, target: str) -> dict[str, int]:
    """setmaxnreg instructions in the PTX: partitions giving registers back
    (dec) and taking them (inc)."""
    ptx = record(build, target)["ptx_opcodes"]
    return {
        "dec": ptx.get("setmaxnreg.dec.sync.aligned.u32", 0),
        "inc": ptx.get("setmaxnreg.inc.sync.aligned.u32", 0),
    }


def division_of_work(build: str, target: str) -> dict:
    """Who does what in a warp-specialised build, from its partitions (each
    region of Triton's ``warp_specialize`` op; the kernel's body repeats the
    loop for its edge blocks, so a region may appear twice, identically):
    the regions that issue matrix products, those that issue exponentials,
    those that issue TMA copies, and, for the product issuer, how many
    score products (A in shared memory: Q·K^T) it issues before its first
    P·V (A, the probabilities, in tensor memory)."""
    regions = {r["name"]: r for r in record(build, target).get("partitions", [])}
    products = [r for r in regions.values() if r["products_a"]]
    scores_ahead = None
    if len(products) == 1:
        order = products[0]["products_a"]
        scores_ahead = order.index("tensor") if "tensor" in order else len(order)
    return {
        "regions": len(regions),
        "products": [r["name"] for r in products],
        "exp": [r["name"] for r in regions.values() if r["exp"]],
        "tma": [r["name"] for r in regions.values() if r["tma_copies"]],
        "product_warps": products[0]["warps"] if len(products) == 1 else None,
        "scores_ahead": scores_ahead,
    }


def facts() -> dict[str, str]:
    """Every artifact value the lesson states."""
    hopper, hopper_ws = record(OVERLAP, "sm_90a"), record(SPECIALISED, "sm_90a")
    blackwell_ws = record(SPECIALISED, "sm_100a")
    moves = register_moves(SPECIALISED, "sm_100a")
    same = hopper["sass_opcodes"] == hopper_ws["sass_opcodes"]
    split = division_of_work(SPECIALISED, "sm_100a")
    return {
        "hopper_waits": ", ".join(f"`{w}`" for w in waits(OVERLAP, "sm_90a")),
        "hopper_registers": str(hopper["registers"]),
        "hopper_ws_same": "the same instructions" if same else "different code",
        "blackwell_dec": str(moves["dec"]),
        "blackwell_inc": str(moves["inc"]),
        "blackwell_ws_registers": str(blackwell_ws["registers"]),
        "blackwell_ws_spills": f"{blackwell_ws['spill_store_bytes']:,}",
        "blackwell_plain_registers": str(record(OVERLAP, "sm_100a")["registers"]),
        "blackwell_regions": str(split["regions"]),
        "blackwell_product_warps": _count(split["product_warps"], "warp"),
        "blackwell_scores_ahead": _count(split["scores_ahead"], "score product"),
        "blackwell_exp_regions": _count(len(split["exp"]), "other group"),
    }


def _count(number: int | None, noun: str) -> str:
    if number is None:
        return "(no single product issuer)"
    return f"{number} {noun}" + ("" if number == 1 else "s")


if __name__ == "__main__":
    for key, value in facts().items():
        print(f"{key}: {value}")
