"""The exercise on Kernel Correctness Contracts: how likely an unwritten
output element passes by luck, for each choice of inputs.

A launcher that rounds its grid down leaves the last elements unwritten. If
the memory under them happens to hold zeros, an element passes whenever its
reference ``relu(x + residual)`` is 0: half the time for mixed-sign random
inputs, never for all-positive ones. Memory filled with a negative pattern
before the call (no ReLU output is negative) makes the catch certain.
"""

import math


def luck_pass_chance(unwritten: int, positive: bool, dirtied: bool = False) -> float:
    """Probability that `unwritten` elements left holding zeros (or, when
    `dirtied`, a negative pattern) all match their references."""
    if unwritten < 0:
        raise ValueError("unwritten must be >= 0")
    if dirtied or positive:
        return 0.0 if unwritten else 1.0
    return 0.5**unwritten


def unwritten_tail(numel: int, block_size: int) -> int:
    """Elements a grid of floor(numel / block_size) programs never writes."""
    return numel - (numel // block_size) * block_size


#: The smallest input the exercise's second case takes.
ONE_ELEMENT = 1


def facts(numel: int = 257, block_size: int = 256) -> dict[str, str]:
    """The exercise's answer: the unwritten tail and its luck-pass chances,
    and the programs a one-element input gets."""
    tail = unwritten_tail(numel, block_size)
    return {
        "tail": f"{tail}",
        "mixed": f"{luck_pass_chance(tail, positive=False):g}",
        "positive": f"{luck_pass_chance(tail, True):g}",
        "one-element-programs": f"{math.floor(ONE_ELEMENT / block_size)}",
        "one-element": f"{ONE_ELEMENT}-element",
    }


if __name__ == "__main__":
    # The functions on another shape than the exercise's, whose answer stays
    # in its fold on the page.
    tail = unwritten_tail(260, 256)
    print(f"260 elements, floor grid of 256-element blocks: {tail} unwritten")
    mixed, dirtied = luck_pass_chance(tail, False), luck_pass_chance(tail, False, True)
    print(f"chance they all pass by luck, mixed-sign inputs: {mixed:g}")
    print(f"the same, output first filled with a negative pattern: {dirtied:g}")
