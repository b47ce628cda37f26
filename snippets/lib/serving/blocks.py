"""The block pool of a paged KV cache (docs/inference/serving-engine.md).

Standard library only: the allocator hands out block numbers and remembers
who holds each one; the tensors those numbers index live in engine.py.
With prefix caching (docs/inference/prefix-caching-and-chunked-prefill.md)
a full block is also registered under its content, the tokens from the
start of the sequence to the block's end, so another sequence with the same
tokens can take it instead of computing it again.
"""

from collections import OrderedDict


# --8<-- [start:allocator]
class PoolExhausted(RuntimeError):
    """No free block is left; the scheduler queues or preempts."""


def blocks_needed(tokens: int, block_size: int) -> int:
    """Blocks that hold `tokens` keys and values: the last one may be partly
    empty, and that partial block is all the waste paging leaves."""
    return -(-tokens // block_size)  # ceiling division


class BlockAllocator:
    """Free blocks in least-recently-freed order, and the holders of every
    block in use. A block may have several holders only when prefix caching
    shared it; a holder can only give back blocks it holds."""

    def __init__(self, num_blocks: int):
        self.num_blocks = num_blocks
        # Eviction order: the block freed longest ago comes out first.
        self.free: OrderedDict[int, None] = OrderedDict.fromkeys(range(num_blocks))
        self.holders: dict[int, set[int]] = {}
        self.key_of: dict[int, tuple] = {}  # cached block -> its content
        self.block_of: dict[tuple, int] = {}  # content -> cached block
        self.hits = 0  # blocks taken from the cache instead of computed

    @property
    def num_free(self) -> int:
        return len(self.free)

    @property
    def owner(self) -> dict[int, int]:
        """One holder per block in use (the lowest id), for pictures and checks."""
        return {b: min(h) for b, h in self.holders.items()}

    def allocate(self, seq_id: int) -> int:
        if not self.free:
            raise PoolExhausted(f"all {self.num_blocks} blocks are in use")
        block, _ = self.free.popitem(last=False)
        if block in self.holders:  # a bug upstream: never hand a block out twice
            raise RuntimeError(f"block {block} already held by {self.holders[block]}")
        key = self.key_of.pop(block, None)
        if key is not None:  # evicted: its old content is about to be overwritten
            del self.block_of[key]
        self.holders[block] = {seq_id}
        return block

    def release(self, seq_id: int, blocks: list[int]) -> None:
        # Last block first, so a sequence's tail (the part least likely to be
        # shared) is evicted before its prefix.
        for block in reversed(blocks):
            if seq_id not in self.holders.get(block, ()):
                raise RuntimeError(f"sequence {seq_id} does not own block {block}")
            self.holders[block].discard(seq_id)
            if not self.holders[block]:
                del self.holders[block]
                self.free[block] = None

    # --8<-- [end:allocator]

    # --8<-- [start:prefix-cache]
    def register(self, block: int, key: tuple) -> None:
        """Remember that a full block holds the keys and values of `key`."""
        if key not in self.block_of and block not in self.key_of:
            self.block_of[key] = block
            self.key_of[block] = key

    def cached(self, key: tuple) -> int | None:
        return self.block_of.get(key)

    def share(self, key: tuple, seq_id: int) -> int:
        """Take the cached block of `key` for `seq_id`: out of the free list
        if nobody held it, else one more holder (a reference count)."""
        block = self.block_of[key]
        if block in self.free:
            del self.free[block]
            self.holders[block] = {seq_id}
        else:
            self.holders[block].add(seq_id)
        self.hits += 1
        return block

    def is_shared_content(self, block: int) -> bool:
        """A registered block: nobody may write into it any more."""
        return block in self.key_of

    # --8<-- [end:prefix-cache]


if __name__ == "__main__":
    pool = BlockAllocator(4)
    table = [pool.allocate(seq_id=7) for _ in range(blocks_needed(37, 16))]
    print("37 tokens in blocks of 16 ->", table, "free:", pool.num_free)
    pool.release(7, table)
    print("after release, free:", pool.num_free)
