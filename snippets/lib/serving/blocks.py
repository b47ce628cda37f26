"""The block pool of a paged KV cache (docs/inference/serving-engine.md).

Standard library only: the allocator hands out block numbers and remembers
who owns each one; the tensors those numbers index live in engine.py.
"""


# --8<-- [start:allocator]
class PoolExhausted(RuntimeError):
    """No free block is left; the scheduler queues or preempts."""


def blocks_needed(tokens: int, block_size: int) -> int:
    """Blocks that hold `tokens` keys and values: the last one may be partly
    empty, and that partial block is all the waste paging leaves."""
    return -(-tokens // block_size)  # ceiling division


class BlockAllocator:
    """A free list of block numbers and an owner for every block in use.

    `owner` is the check the contract tests lean on: a block belongs to at
    most one sequence, and a sequence can only give back its own blocks."""

    def __init__(self, num_blocks: int):
        self.num_blocks = num_blocks
        self.free = list(range(num_blocks - 1, -1, -1))  # pop() gives 0 first
        self.owner: dict[int, int] = {}

    @property
    def num_free(self) -> int:
        return len(self.free)

    def allocate(self, seq_id: int) -> int:
        if not self.free:
            raise PoolExhausted(f"all {self.num_blocks} blocks are in use")
        block = self.free.pop()
        if block in self.owner:  # a bug upstream: never hand a block out twice
            raise RuntimeError(f"block {block} already owned by {self.owner[block]}")
        self.owner[block] = seq_id
        return block

    def release(self, seq_id: int, blocks: list[int]) -> None:
        for block in blocks:
            if self.owner.get(block) != seq_id:
                raise RuntimeError(f"sequence {seq_id} does not own block {block}")
            del self.owner[block]
            self.free.append(block)


# --8<-- [end:allocator]


if __name__ == "__main__":
    pool = BlockAllocator(4)
    table = [pool.allocate(seq_id=7) for _ in range(blocks_needed(37, 16))]
    print("37 tokens in blocks of 16 ->", table, "free:", pool.num_free)
    pool.release(7, table)
    print("after release, free:", pool.num_free)
