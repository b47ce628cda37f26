"""What each Compute Sanitizer tool is expected to report on each planted bug.

Shown on docs/kernels/correctness/compute-sanitizer.md and read by
`python -m scripts.sanitize`, which compares every run with these rows.
Pure data and standard library: the site build reads it without torch.
The expectations follow NVIDIA's Compute Sanitizer documentation; a GPU
run either confirms each one or records that it did not.
"""

from evidence.tables import markdown_table

# The planted cases' size: not a multiple of the block, so the last
# program is partial.
N = 1000
BLOCK = 256
ITEMSIZE = 4  # float32

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
CASES = ("oob-read", "uninit-read", "global-race", "clean")
CACHING_ENV = "PYTORCH_NO_CUDA_MEMORY_CACHING"

# --8<-- [start:expected]
# (case, tool, caching) -> (expect, text the report should contain, why).
# caching=True is PyTorch's default allocator; False sets
# PYTORCH_NO_CUDA_MEMORY_CACHING=1, so every tensor is its own cudaMalloc.
EXPECTED = {
    ("oob-read", "memcheck", True): (
        "clean",
        "",
        "the bytes past the tensor lie inside the allocator's segment, "
        "which CUDA sees as allocated",
    ),
    ("oob-read", "memcheck", False): (
        "report",
        "Invalid __global__ read",
        "the tensor is its own allocation, so the last block reads past it",
    ),
    ("uninit-read", "initcheck", False): (
        "report",
        "Uninitialized __global__ memory read",
        "half of `staged` was never written before the copy read it",
    ),
    ("global-race", "racecheck", True): (
        "clean",
        "",
        "racecheck checks shared memory only; these programs collide in global memory",
    ),
    ("global-race", "memcheck", True): (
        "clean",
        "",
        "every access is in bounds; a wrong answer is not a memory error",
    ),
    ("clean", "memcheck", True): ("clean", "", "the control"),
    ("clean", "racecheck", True): ("clean", "", "the control"),
    ("clean", "synccheck", True): ("clean", "", "the control"),
    ("clean", "initcheck", False): ("clean", "", "the control"),
}
# --8<-- [end:expected]


def expected(case: str, tool: str, caching: bool) -> tuple[str, str, str]:
    """The row for one run, or ('not stated', '', ...) when none is made."""
    return EXPECTED.get(
        (case, tool, caching), ("not stated", "", "no expectation recorded")
    )


def expected_why(case: str, tool: str, caching: bool) -> str:
    """The reason recorded for one expectation, as a clause."""
    return expected(case, tool, caching)[2]


def expected_table() -> str:
    """Markdown: every stated expectation."""
    rows = []
    for (case, tool, caching), (expect, text, why) in EXPECTED.items():
        env = "default" if caching else f"`{CACHING_ENV}=1`"
        shown = f"`{text}`" if text else "no error"
        rows.append((f"`{case}`", f"`{tool}`", env, f"{expect}: {shown}", why))
    header = ["planted case", "tool", "allocator", "expected", "why"]
    return markdown_table(header, rows, escape=False)


def facts() -> dict[str, str]:
    """The launch the page describes: size, blocks and the overrun."""
    blocks = -(-N // BLOCK)
    extra = blocks * BLOCK - N
    return {
        "numel": f"{N:,}",
        "block": f"{BLOCK}",
        "blocks": f"{blocks}",
        "overrun": f"{extra}",
        "overrun-bytes": f"{extra * ITEMSIZE}",
    }


if __name__ == "__main__":
    print(expected_table())
