"""The KV cache and its management (docs/inference/kv-cache-management.md).

Standard library only: sizes, the waste of reserving against paging, prefix
sharing, all counted in tokens and blocks.
"""

from kernels.devices import H200
from snippets.lib.batching import MODEL, kv_bytes_per_token
from snippets.lib.serving import measured
from snippets.lib.serving.blocks import BlockAllocator, blocks_needed

#: The tiny model as the engine serves it: 2 layers, 4 heads of width 16,
#: float64 (8 bytes), a context of 64 tokens.
TINY = dict(layers=2, kv_heads=4, head_dim=16, itemsize=8, context=64)


# --8<-- [start:capacity]
def sequences_that_fit(
    memory_bytes: float, weight_bytes: float, kv_per_token: float, tokens_per_seq: int
) -> int:
    """Whole sequences whose KV cache fits in what the weights leave free."""
    if weight_bytes >= memory_bytes:
        raise ValueError("weight_bytes must be less than memory_bytes")
    return int((memory_bytes - weight_bytes) // (kv_per_token * tokens_per_seq))


# --8<-- [end:capacity]


# --8<-- [start:waste]
def reserved_waste(lengths: list[int], reserve: int) -> float:
    """Share of KV slots unused when each sequence reserves `reserve` slots
    up front (its maximum length), as contiguous allocation must."""
    return 1 - sum(lengths) / (reserve * len(lengths))


def reserved_own_waste(lengths: list[int], reservations: list[int]) -> float:
    """Share unused when each sequence reserves its own maximum (prompt plus
    max_new_tokens): zero when every reply runs to its maximum, as here."""
    return 1 - sum(lengths) / sum(reservations)


def paged_waste(lengths: list[int], block_size: int) -> float:
    """Share of KV slots unused when slots come in blocks on demand: only the
    last, partly filled block of each sequence wastes anything."""
    slots = sum(blocks_needed(n, block_size) * block_size for n in lengths)
    return 1 - sum(lengths) / slots


# --8<-- [end:waste]


# --8<-- [start:prefix]
def prefix_blocks(requests: int, prefix: int, own: int, block_size: int):
    """Blocks for `requests` sequences that start with the same `prefix`
    tokens and then have `own` tokens each, without and with sharing. Only
    whole blocks of the prefix can be shared; the partial one is copied."""
    alone = requests * blocks_needed(prefix + own, block_size)
    shared_full = prefix // block_size
    per_request = blocks_needed(prefix + own, block_size) - shared_full
    return {"without": alone, "with": shared_full + requests * per_request}


# --8<-- [end:prefix]


def own_maxima() -> list[int]:
    """KV tokens each request of the CPU run could have reached: its prompt
    plus the run's max_new_tokens (capped by the context), minus the last."""
    result = measured.newest()
    limit = result["settings"]["max_new_tokens"]
    out = []
    for load in result["loads"]:
        for p in load["requests"]["prompt_tokens"]:
            out.append(p + min(limit, TINY["context"] - p) - 1)
    return out


def cached_lengths() -> list[int]:
    """KV tokens each request of the CPU run held at its end."""
    result = measured.newest()
    lengths = []
    for load in result["loads"]:
        r = load["requests"]
        lengths += [
            p + o - 1
            for p, o in zip(r["prompt_tokens"], r["output_tokens"], strict=True)
        ]
    return lengths


def text(what: str) -> str:
    """Numbers for the prose, each computed here."""
    t = TINY
    tiny_kv = kv_bytes_per_token(
        t["layers"], t["kv_heads"], t["head_dim"], t["itemsize"]
    )
    big_kv = kv_bytes_per_token(
        MODEL["layers"], MODEL["kv_heads"], MODEL["head_dim"], MODEL["bytes_per_param"]
    )
    weights = MODEL["params"] * MODEL["bytes_per_param"]
    if what == "tiny_per_token":
        return f"{tiny_kv:,} bytes"
    if what == "tiny_pool":
        s = measured.newest()["settings"]
        pool = s["num_blocks"] * s["block_size"] * tiny_kv
        kib = pool / 2**10
        return f"{s['num_blocks']} blocks of {s['block_size']} tokens, {kib:.0f} KiB"
    if what == "big_per_token":
        return f"{big_kv / 2**10:.0f} KiB"
    if what.startswith("fit_"):
        tokens = int(what[4:])
        n = sequences_that_fit(H200.memory_bytes, weights, big_kv, tokens)
        return f"{n:,}"
    if what == "h200_memory":
        return f"{H200.memory_bytes / 1e9:.0f} GB"
    lengths = cached_lengths()
    reserve = TINY["context"] - 1
    if what == "run_requests":
        return f"{len(lengths):,}"
    if what == "run_reserved_own":
        return f"{reserved_own_waste(lengths, own_maxima()):.0%}"
    if what == "run_reserved":
        return f"{reserved_waste(lengths, reserve):.0%}"
    if what.startswith("run_paged_"):
        return f"{paged_waste(lengths, int(what[10:])):.0%}"
    if what == "run_preemptions":
        result = measured.newest()
        return f"{sum(sum(x['requests']['preemptions']) for x in result['loads'])}"
    raise ValueError(f"what must name a text, got {what!r}")


def waste_table(block_sizes=(1, 4, 16, 64)) -> str:
    """Unused KV slots on the CPU run's requests, reserve against paging."""
    lengths = cached_lengths()
    reserve = TINY["context"] - 1
    lines = [
        "| allocation | unused slots |",
        "| --- | ---: |",
        f"| reserve the whole context ({reserve} slots) per sequence | "
        f"{reserved_waste(lengths, reserve):.0%} |",
        "| reserve each request's own prompt + max_new_tokens | "
        f"{reserved_own_waste(lengths, own_maxima()):.0%} |",
    ]
    for b in block_sizes:
        lines.append(f"| blocks of {b} | {paged_waste(lengths, b):.0%} |")
    return "\n".join(lines)


def pool_picture(
    lengths: tuple = (37, 12, 21), block_size: int = 16, num_blocks: int = 8
):
    """The block pool after three sequences grew one token at a time, taking
    turns: each block coloured by its owner, the block tables beside it."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, FONT_SIZE, INK, MUTED, SECOND, figure

    pool = BlockAllocator(num_blocks)
    tables = {i: [] for i in range(len(lengths))}
    for t in range(max(lengths)):  # one token per sequence per step
        for i, n in enumerate(lengths):
            if t < n and t % block_size == 0:
                tables[i].append(pool.allocate(i))
    colours = [ACCENT, SECOND, INK]
    fig = figure(6.5, 2.6)
    ax = fig.add_subplot(1, 1, 1)
    for b in range(num_blocks):
        owner = pool.owner.get(b)
        filled = 0
        if owner is not None:
            index = tables[owner].index(b)
            filled = min(block_size, lengths[owner] - index * block_size)
        ax.add_patch(Rectangle((b, 0), 1, 1, facecolor="none", edgecolor=MUTED))
        if owner is not None:
            ax.add_patch(
                Rectangle(
                    (b, 0), filled / block_size, 1, facecolor=colours[owner], alpha=0.6
                )
            )
        ax.text(
            b + 0.5,
            -0.3,
            str(b),
            ha="center",
            va="center",
            color=INK,
            fontsize=FONT_SIZE,
        )
    for i, table in tables.items():
        ax.text(
            0,
            1.5 + 0.45 * (len(lengths) - 1 - i),
            f"sequence {i} ({lengths[i]} tokens): block table {table}",
            color=colours[i],
            va="center",
        )
    ax.text(
        num_blocks,
        -0.3,
        f"pool block (of {block_size} tokens)",
        ha="right",
        va="top",
        color=MUTED,
        fontsize=FONT_SIZE,
        transform=ax.transData,
    )
    ax.set_xlim(0, num_blocks)
    ax.set_ylim(-0.9, 1.4 + 0.45 * len(lengths))
    ax.axis("off")
    return fig


# Exercise 1: the example model with 4,096-token sequences.
# Exercise 2: prefix sharing for a chat system prompt.
EX2 = dict(requests=32, prefix=1000, own=200, block_size=16)


def exercise_text(which: str) -> str:
    if which == "ex1_a":
        return (
            f"{text('big_per_token')} per token, so "
            f"{text('fit_4096')} sequences of 4,096 tokens"
        )
    if which == "ex2_q":
        e = EX2
        return (
            f"{e['requests']} requests share a system prompt of "
            f"{e['prefix']:,} tokens and add {e['own']} tokens each; blocks "
            f"hold {e['block_size']} tokens"
        )
    if which == "ex2_a":
        r = prefix_blocks(**EX2)
        return (
            f"{r['without']:,} blocks without sharing, {r['with']:,} with "
            f"({1 - r['with'] / r['without']:.0%} fewer)"
        )
    raise ValueError(f"which must name an exercise text, got {which!r}")


def facts() -> dict[str, str]:
    """Every value the pages state by name."""
    out = {
        "big_per_token": text("big_per_token"),
        "ex1_a": exercise_text("ex1_a"),
        "ex2_a": exercise_text("ex2_a"),
        "ex2_q": exercise_text("ex2_q"),
        "fit_1000": text("fit_1000"),
        "fit_4096": text("fit_4096"),
        "h200_memory": text("h200_memory"),
        "run_preemptions": text("run_preemptions"),
        "run_requests": text("run_requests"),
        "run_reserved_own": text("run_reserved_own"),
        "tiny_per_token": text("tiny_per_token"),
        "tiny_pool": text("tiny_pool"),
    }
    return out


if __name__ == "__main__":
    for key in ("tiny_per_token", "big_per_token", "fit_1000"):
        print(key, text(key))
    print(waste_table())
