"""Float32 sums in different orders, modelled exactly on the CPU.

Shown on docs/kernels/memory-bound/deterministic-reductions.md. Evidence
kind: CPU model. Float32 addition is modelled by adding in Python's double
and rounding to float32: double has more than twice float32's precision,
so that rounding gives the correctly rounded float32 sum. The model shows
which orders a kernel may add in and what each order gives; it says
nothing about speed.
"""

import functools
import math
import random
import struct


# --8<-- [start:float32]
def f32(value: float) -> float:
    """Round a Python float to the nearest float32."""
    return struct.unpack("f", struct.pack("f", value))[0]


def add32(a: float, b: float) -> float:
    """One float32 addition: exact in double, then rounded once."""
    return f32(a + b)
    # --8<-- [end:float32]


def bits(value: float) -> str:
    """The float32 bit pattern as hex, for bitwise comparison."""
    return struct.pack(">f", value).hex()


def sample(n: int, seed: int = 0) -> list[float]:
    """n float32 values of mixed sign and magnitude (a thousandth to a
    thousand), reproducible from the seed."""
    rng = random.Random(seed)
    return [f32(rng.gauss(0, 1) * 10 ** rng.uniform(-3, 3)) for _ in range(n)]


# --8<-- [start:orders]
def sequential_sum(values: list[float]) -> float:
    """Left to right, one running total: one thread's loop."""
    total = 0.0
    for value in values:
        total = add32(total, value)
    return total


def tree_sum(values: list[float]) -> float:
    """A block tree: halve the list, add pairs i and i + half, repeat.
    The order is fixed by the positions alone."""
    level = list(values) or [0.0]
    while len(level) > 1:
        if len(level) % 2:
            level.append(0.0)  # a masked lane adds 0
        half = len(level) // 2
        level = [add32(level[i], level[i + half]) for i in range(half)]
    return level[0]


def two_stage_sum(values: list[float], block: int) -> float:
    """What kernels/reduction/ does: one tree per block of `block`
    values writes a partial to its own slot; the partials are reduced the
    same way until one is left. Every addition has a fixed place."""
    level = list(values)
    while True:
        partials = [tree_sum(level[i : i + block]) for i in range(0, len(level), block)]
        if len(partials) <= 1:
            return partials[0] if partials else 0.0
        level = partials


def atomic_sum(values: list[float], block: int, arrival: list[int]) -> float:
    """Each block's tree, then `atomicAdd` into one total: the partials are
    added in the order the blocks happen to finish (`arrival`)."""
    partials = [tree_sum(values[i : i + block]) for i in range(0, len(values), block)]
    if sorted(arrival) != list(range(len(partials))):
        raise ValueError("arrival must be a permutation of the block indices")
    total = 0.0
    for index in arrival:
        total = add32(total, partials[index])
    return total
    # --8<-- [end:orders]


def atomic_outcomes(values: list[float], block: int, trials: int, seed: int = 1):
    """Distinct totals over `trials` random finishing orders of the blocks."""
    rng = random.Random(seed)
    blocks = math.ceil(len(values) / block)
    outcomes = set()
    for _ in range(trials):
        arrival = list(range(blocks))
        rng.shuffle(arrival)
        outcomes.add(atomic_sum(values, block, arrival))
    return outcomes


# --8<-- [start:bounds]
U32 = 2.0**-24  # unit roundoff of float32: half the gap above 1.0


def gamma(k: int, u: float = U32) -> float:
    """Higham's gamma_k = k u / (1 - k u), valid while k u < 1."""
    if k * u >= 1:
        raise ValueError(f"k * u must be < 1, got k={k}")
    return k * u / (1 - k * u)


def error_bound(values: list[float], depth: int) -> float:
    """|computed - exact| <= gamma_depth * sum |x_i|, where depth is the
    largest number of additions any one value passes through: n - 1 for
    the sequential loop, about log2 n for a tree."""
    return gamma(depth) * math.fsum(abs(v) for v in values)


def depth_sequential(n: int) -> int:
    return max(n - 1, 0)


def depth_two_stage(n: int, block: int) -> int:
    """Levels of the block trees plus levels of every later stage."""
    depth, size = 0, n
    while size > 1:
        depth += math.ceil(math.log2(min(size, block)))
        size = math.ceil(size / block)
    return depth
    # --8<-- [end:bounds]


def stages(numel: int, block: int) -> list[int]:
    """Launch by launch, how many values each stage reads (the launcher's
    loop in kernels/reduction/, replayed)."""
    sizes, size = [], numel
    while True:
        sizes.append(size)
        blocks = max(1, math.ceil(size / block))
        if blocks == 1:
            return sizes
        size = blocks


# --8<-- [start:cost]
def determinism_cost(numel: int, itemsize: int, block: int) -> dict:
    """Extra bytes and launches of the two-stage reduction against one
    launch with atomics: every later stage writes, then reads, one float32
    partial per block of the stage before."""
    sizes = stages(numel, block)
    partial_bytes = sum(2 * 4 * size for size in sizes[1:])
    return {
        "launches": len(sizes),
        "extra_launches": len(sizes) - 1,
        "input_bytes": numel * itemsize,
        "partial_bytes": partial_bytes,
        "share": partial_bytes / (numel * itemsize),
    }
    # --8<-- [end:cost]


# --8<-- [start:persistent]
PROGRAMS = 4 * 132  # kernels/reduction/versions.py's PERSISTENT_PROGRAMS, fixed


def persistent_plan(numel: int, block: int, programs: int = PROGRAMS) -> dict:
    """Version 2: `programs` programs each loop over whole blocks, adding
    lane by lane; a tail program takes the partial block; version 1 then
    reduces the partials. The order is still fixed, the depth is longer."""
    whole, tail = divmod(numel, block)
    if whole == 0:  # less than one block: version 1 alone
        return {
            "steps": 0,
            "partials": 0,
            "launches": len(stages(numel, block)),
            "depth": depth_two_stage(numel, block),
        }
    grid = min(whole, programs)
    steps = math.ceil(whole / grid)
    partials = grid + (tail > 0)
    return {
        "steps": steps,
        "partials": partials,
        "launches": 1 + (tail > 0) + len(stages(partials, block)),
        "depth": max(steps - 1, 0)
        + math.ceil(math.log2(block))
        + depth_two_stage(partials, block),
    }
    # --8<-- [end:persistent]


WORKED = {"n": 4096, "block": 256, "trials": 200, "big": 1 << 28, "kernel_block": 4096}


@functools.cache
def report(n: int = WORKED["n"], block: int = WORKED["block"]) -> dict:
    """Every order's sum against the exact sum, with the bounds."""
    values = sample(n)
    exact = math.fsum(values)
    seq, tree = sequential_sum(values), tree_sum(values)
    two = two_stage_sum(values, block)
    atomics = atomic_outcomes(values, block, WORKED["trials"])
    return {
        "exact": exact,
        "sequential": seq,
        "tree": tree,
        "two_stage": two,
        "atomic_distinct": len(atomics),
        "atomic_spread": max(atomics) - min(atomics),
        "err_sequential": abs(seq - exact),
        "err_two_stage": abs(two - exact),
        "err_atomic_max": max(abs(a - exact) for a in atomics),
        "bound_sequential": error_bound(values, depth_sequential(n)),
        "bound_two_stage": error_bound(values, depth_two_stage(n, block)),
        "depth_two_stage": depth_two_stage(n, block),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name: the worked
    example's, and each exercise's (exercise.NAME.KEY)."""
    n, block = WORKED["n"], WORKED["block"]
    r = report()
    cost = determinism_cost(WORKED["big"], 4, WORKED["kernel_block"])
    v2 = persistent_plan(WORKED["big"], WORKED["kernel_block"])
    values = {
        "setup": f"{n:,} float32 values in blocks of {block}",
        "blocks": f"{math.ceil(n / block)}",
        "trials": f"{WORKED['trials']}",
        "atomic-distinct": f"{r['atomic_distinct']}",
        "atomic-spread": f"{r['atomic_spread']:.3g}",
        "sequential-vs-tree": "the same"
        if r["sequential"] == r["two_stage"]
        else f"{abs(r['sequential'] - r['two_stage']):.3g} apart",
        "err-sequential": f"{r['err_sequential']:.3g}",
        "err-two-stage": f"{r['err_two_stage']:.3g}",
        "bound-sequential": f"{r['bound_sequential']:.3g}",
        "bound-two-stage": f"{r['bound_two_stage']:.3g}",
        "depth-two-stage": f"{r['depth_two_stage']}",
        "bf16-u-ratio": f"{2.0**-8 / U32:,.0f}",  # bf16 keeps 8 significant bits
        "depth-sequential": f"{depth_sequential(n):,}",
        "cost-numel": f"{WORKED['big']:,} float32 values",
        "cost-launches": f"{cost['launches']}",
        "cost-share": f"{cost['share']:.2%}",
        "cost-stages": " → ".join(f"{s:,}" for s in stages(WORKED["big"], 4096)),
        "cost-depth": f"{depth_two_stage(WORKED['big'], WORKED['kernel_block'])}",
        "v2-programs": f"{PROGRAMS}",
        "v2-steps": f"{v2['steps']}",
        "v2-launches": f"{v2['launches']}",
        "v2-depth": f"{v2['depth']}",
        "v2-partials": f"{v2['partials']}",
    }
    for name in EXERCISES:
        values.update(exercise_facts(name))
    return values


# --8<-- [start:exercise]
def exercise_answer(numel: int, block: int) -> dict:
    """Launches, tree depth and the two bounds' ratio for one size."""
    return {
        "launches": len(stages(numel, block)),
        "depth": depth_two_stage(numel, block),
        "bound_ratio": gamma(depth_sequential(numel))
        / gamma(depth_two_stage(numel, block)),
    }
    # --8<-- [end:exercise]


EXERCISES = {"million": (1 << 20, 1024), "odd": (10**6 + 7, 4096)}


def exercise_facts(name: str) -> dict[str, str]:
    """One exercise's sizes and its answer, formatted."""
    numel, block = EXERCISES[name]
    a = exercise_answer(numel, block)
    return {
        f"exercise.{name}.numel": f"{numel:,}",
        f"exercise.{name}.block": f"{block}",
        f"exercise.{name}.launches": f"{a['launches']}",
        f"exercise.{name}.depth": f"{a['depth']}",
        f"exercise.{name}.sequential": f"{depth_sequential(numel):,}",
        f"exercise.{name}.ratio": f"{a['bound_ratio']:,.0f}",
    }


if __name__ == "__main__":
    r = report()
    print(f"{WORKED['n']} values, blocks of {WORKED['block']}")
    print(f"two-stage sum, bits {bits(r['two_stage'])} (every run)")
    print(
        f"atomic orders tried {WORKED['trials']}: {r['atomic_distinct']} distinct sums"
    )
    print(f"error sequential {r['err_sequential']:.3g} <= {r['bound_sequential']:.3g}")
    print(f"error two-stage  {r['err_two_stage']:.3g} <= {r['bound_two_stage']:.3g}")
    print(f"stages for 2**28: {facts()['cost-stages']}")
