"""Interview exercise: the int32 offset that wraps past 2**31
(docs/interview/fix-int32-offset-overflow.md). int32 arithmetic is emulated
exactly by the shared model, snippets/lib/int32_offsets.py, so the page's
numbers are what a 32-bit register would hold."""

from kernels.devices import H200
from snippets.lib.int32_offsets import (
    INT32_MAX,
    as_int32,
    first_wrapped_lane,
    first_wrapping_program,
)

START = 2**31 - 100  # the grader's second case
WINDOW = 4096
BLOCK = 1024


def facts() -> dict[str, str]:
    lane = first_wrapped_lane(START, WINDOW)
    bf16_bytes = 2**31 * 2
    return {
        "given.start": "2**31 − 100",
        "given.window": f"{WINDOW:,}",
        "answer.int32_max": f"{INT32_MAX:,}",
        "answer.first_lane": str(lane),
        "answer.wrapped": f"{as_int32(START + lane):,}".replace("-", "−"),
        "answer.bf16_gb": f"{bf16_bytes / 1e9:.2f} GB",
        "answer.h200_share": f"{bf16_bytes / H200.memory_bytes:.1%}",
        "given.block": f"{BLOCK:,}",
        "answer.first_program": f"{first_wrapping_program(BLOCK):,}",
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>13}: {value}")
