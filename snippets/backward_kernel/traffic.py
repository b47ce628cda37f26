"""The bytes softmax's backward pass moves, three ways, and what the compiled
backward kernel holds (lesson: A backward kernel). Evidence kinds: pencil
model (the passes) and compiled artifact (results/artifacts/softmax.sm_90a.json,
read through evidence/artifacts.py); never speed.

``EAGER_COMPOSITE`` lists the kernels autograd runs for a softmax written as
exp, sum and divide; tests/snippets/backward_kernel/test_traffic.py records
what autograd really dispatches and checks the list against it.
"""

from __future__ import annotations

from evidence import artifacts

#: The artifact build the lesson reads, and the forward build beside it
#: (same row width, same warps, bf16).
BACKWARD_BUILD = "backward-bf16-4096"
FORWARD_BUILD = "v3-bf16-4096"
WORKED = {"rows": 32768, "cols": 4096, "itemsize": 2}  # the artifact's shape


# --8<-- [start:passes]
#: (kernel, row-sized tensors read, row-sized tensors written) per element.
#: Per-row values (the sum s, one number a row) are left out: they are
#: 1/cols of the traffic.
FORWARD = [("softmax forward", 1, 1)]  # read x, write y
FUSED_BACKWARD = [("softmax backward", 2, 1)]  # read y and dy, write dx
#: Autograd through e = exp(x - max); y = e / s with s = e.sum(): the
#: divide's backward (five kernels), the sum's (a broadcast, which is a
#: view), the add of e's two gradients, and exp's (a multiply).
EAGER_COMPOSITE = [
    ("div: dy / s, the gradient into e", 1, 1),
    ("div: e / s, y once more", 1, 1),
    ("neg: -dy", 1, 1),
    ("mul: -dy * (e / s)", 2, 1),
    ("div: that / s", 1, 1),
    ("sum: the gradient into s", 1, 0),
    ("add: e's two gradients", 2, 1),
    ("mul: times exp's output e", 2, 1),
]


def passes(kernels: list[tuple[str, int, int]]) -> tuple[int, int, int]:
    """(kernels, row-sized reads, row-sized writes)."""
    return (
        len(kernels),
        sum(r for _, r, _ in kernels),
        sum(w for _, _, w in kernels),
    )


def bytes_moved(kernels, rows: int, cols: int, itemsize: int) -> int:
    """Least traffic: every tensor a kernel names crosses memory once."""
    _, reads, writes = passes(kernels)
    return (reads + writes) * rows * cols * itemsize
    # --8<-- [end:passes]


# --8<-- [start:artifact]
def per_thread(build: str) -> dict[str, int]:
    """What one thread of a build loads, stores and exponentiates, counted
    from the SASS (static instructions; the kernel has no loop)."""
    entry = artifacts.build("softmax", build)
    families = artifacts.family_counts(entry["sass_opcodes"])
    threads = entry["num_warps"] * artifacts.THREADS_PER_WARP
    return {
        "elements": entry["constexprs"]["BLOCK"] // threads,
        "loads": sum(families.get("global load", {}).values()),
        "stores": sum(families.get("global store", {}).values()),
        "exp2": sum(families.get("exp2 (MUFU)", {}).values()),
        "registers": entry["registers"],
        "spills": artifacts.spills(entry),
    }
    # --8<-- [end:artifact]


def wide_access_bytes(build: str) -> int:
    """Bytes of one of the build's loads: 16 when every load is LDG.E.128."""
    ops = artifacts.build("softmax", build)["sass_opcodes"]
    loads = [op for op in ops if op.startswith("LDG.")]
    if loads != ["LDG.E.128"]:
        raise ValueError(f"{build}: expected only LDG.E.128, found {loads}")
    return 128 // 8


EX1_ROWS, EX1_COLS = 4096, 1000  # exercise 1's float32 tensor


# --8<-- [start:exercise]
def bytes_exercise(rows=EX1_ROWS, cols=EX1_COLS, itemsize=4) -> dict:
    """Exercise 1: bytes of the forward, the fused backward and autograd's
    composite backward for float32 rows."""
    cases = {"forward": FORWARD, "fused": FUSED_BACKWARD, "eager": EAGER_COMPOSITE}
    return {
        name: bytes_moved(kernels, rows, cols, itemsize)
        for name, kernels in cases.items()
    }
    # --8<-- [end:exercise]


def fmt_bytes(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def facts() -> dict[str, str]:
    """Every value the lesson states."""
    shape = WORKED
    eager = passes(EAGER_COMPOSITE)
    fused = passes(FUSED_BACKWARD)
    back, fwd = per_thread(BACKWARD_BUILD), per_thread(FORWARD_BUILD)
    eager_bytes = bytes_moved(EAGER_COMPOSITE, **shape)
    fused_bytes = bytes_moved(FUSED_BACKWARD, **shape)
    forward_bytes = bytes_moved(FORWARD, **shape)
    return {
        "shape": f"{shape['rows']:,} rows of {shape['cols']:,} bf16 values",
        "eager-kernels": str(eager[0]),
        "eager-passes": str(eager[1] + eager[2]),
        "fused-passes": str(fused[1] + fused[2]),
        "eager-bytes": fmt_bytes(eager_bytes),
        "fused-bytes": fmt_bytes(fused_bytes),
        "forward-bytes": fmt_bytes(forward_bytes),
        "eager-ratio": f"{eager_bytes / fused_bytes:.0f}",
        "backward-over-forward": f"{fused_bytes / forward_bytes:.1f}",
        "bytes-per-element": f"{(fused[1] + fused[2]) * shape['itemsize']}",
        "threads-elements": str(back["elements"]),
        "loads": str(back["loads"]),
        "stores": str(back["stores"]),
        "load-bytes": str(wide_access_bytes(BACKWARD_BUILD)),
        "exp2": str(back["exp2"]),
        "forward-exp2": str(fwd["exp2"]),
        "registers": str(back["registers"]),
        "spills": str(back["spills"]),
        "ex1.question": f"{EX1_ROWS:,} rows of {EX1_COLS:,} float32 values",
        **{f"ex1.{k}": f"{v:,} bytes" for k, v in bytes_exercise().items()},
    }


if __name__ == "__main__":
    for key, value in facts().items():
        print(f"{key}: {value}")
