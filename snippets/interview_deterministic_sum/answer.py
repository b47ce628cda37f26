"""Interview exercise: a sum with the same bits every run
(docs/interview/reduce-sum-deterministic.md), graded by
`python -m scripts.practice check reduce-sum-deterministic`. The demonstration
adds the same float32 block partials in different orders, as float atomics
would when blocks finish in a different order on each run."""

import numpy as np

N = 30011  # the grader's largest case
BLOCK = 256
ORDERS = 20
SEED = 31


# --8<-- [start:orders]
def block_partials(x: np.ndarray, block: int) -> list[np.float32]:
    """One float32 partial sum per block, as the first kernel writes them."""
    return [x[i : i + block].sum(dtype=np.float32) for i in range(0, len(x), block)]


def combine(partials: list[np.float32], order) -> np.float32:
    """Add the partials one at a time in `order`, rounding to float32 each
    time: what a chain of float atomic adds does."""
    total = np.float32(0)
    for i in order:
        total = np.float32(total + partials[i])
    return total


# --8<-- [end:orders]


def experiment() -> dict:
    x = np.random.default_rng(SEED).standard_normal(N).astype(np.float32)
    partials = block_partials(x, BLOCK)
    sums = [
        combine(partials, np.random.default_rng(s).permutation(len(partials)))
        for s in range(ORDERS)
    ]
    fixed = combine(partials, range(len(partials)))
    spread = float(max(sums)) - float(min(sums))
    return {
        "partials": len(partials),
        "distinct": len({s.tobytes() for s in sums}),
        "spread_ulps": round(spread / float(np.spacing(np.float32(abs(fixed))))),
        "fixed": fixed,
        "fixed_again": combine(partials, range(len(partials))),
        "exact": float(np.sum(x, dtype=np.float64)),
    }


def facts() -> dict[str, str]:
    e = experiment()
    return {
        "given.n": f"{N:,}",
        "given.block": str(BLOCK),
        "given.orders": str(ORDERS),
        "answer.partials": str(e["partials"]),
        "answer.distinct": str(e["distinct"]),
        "answer.spread_ulps": str(e["spread_ulps"]),
        "answer.fixed_repeats": "yes" if e["fixed"] == e["fixed_again"] else "no",
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>15}: {value}")
