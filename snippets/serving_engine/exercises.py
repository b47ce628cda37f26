"""Exercise answers for docs/inference/serving-engine.md, computed."""

from snippets.lib.serving.blocks import blocks_needed
from snippets.lib.serving.measured import newest

CONTEXT = 64  # the tiny model's context (results/tiny_lm/run.json)


def full_sequences_that_fit(num_blocks: int, block_size: int) -> int:
    """Sequences of the whole context (context - 1 cached tokens) the pool
    holds at once before a growing one forces a preemption."""
    return num_blocks // blocks_needed(CONTEXT - 1, block_size)


def exercise_text(which: str) -> str:
    s = newest()["settings"]
    if which == "ex1_q":
        return (
            f"max_batch={s['max_batch']}, block_size={s['block_size']} and "
            f"num_blocks={s['num_blocks']}"
        )
    if which == "ex1_a":
        per = blocks_needed(CONTEXT - 1, s["block_size"])
        n = full_sequences_that_fit(s["num_blocks"], s["block_size"])
        return (
            f"{per} blocks per full sequence, so {n} full-length sequences "
            f"fit, fewer than the batch limit of {s['max_batch']}"
        )
    if which == "ex2_a":
        return (
            f"{blocks_needed(37, 16)} blocks of 16 hold 37 tokens, "
            f"{blocks_needed(37, 16) * 16 - 37} slots unused; with blocks of "
            f"1 it is {blocks_needed(37, 1)} blocks and none unused"
        )
    raise ValueError(f"which must name an exercise text, got {which!r}")


def facts() -> dict[str, str]:
    """Every value the pages state by name."""
    out = {
        "ex1_a": exercise_text("ex1_a"),
        "ex1_q": exercise_text("ex1_q"),
        "ex2_a": exercise_text("ex2_a"),
    }
    return out


if __name__ == "__main__":
    for key in ("ex1_q", "ex1_a", "ex2_a"):
        print(exercise_text(key))
