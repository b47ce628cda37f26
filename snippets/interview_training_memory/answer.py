"""Interview exercise: will this fine-tune fit?
(docs/interview/training-memory.md), computed with the lesson's model in
snippets/lib/training_memory/budget.py (Memory budgets for training)."""

from kernels.devices import H200
from snippets.lib.training_memory.budget import (
    BYTES_PER_PARAMETER,
    LLAMA3_8B,
    gb,
    parameter_count,
    training_memory_bytes,
    working_set_bytes,
)

SEQ_LEN = 8192
MICRO_BATCH = 1
GPUS = 8


def per_gpu(recompute: str, zero_stage: int = 0, data_parallel: int = 1) -> dict:
    return training_memory_bytes(
        LLAMA3_8B, MICRO_BATCH, SEQ_LEN, recompute, zero_stage, data_parallel
    )


def working(recompute: str) -> dict:
    """The backward pass's working set, part by part (the logits in fp32 and
    their gradient; with full recomputation, the layer being recomputed)."""
    return working_set_bytes(LLAMA3_8B, MICRO_BATCH, SEQ_LEN, recompute)


def fits(parts: dict) -> bool:
    return parts["total"] <= H200.memory_bytes


def facts() -> dict[str, str]:
    params = parameter_count(LLAMA3_8B)["total"]
    selective, full = per_gpu("selective"), per_gpu("full")
    zero1 = per_gpu("selective", 1, GPUS)
    zero3 = per_gpu("selective", 3, GPUS)
    state = selective["weights"] + selective["gradients"] + selective["optimizer"]
    return {
        "given.model": LLAMA3_8B.name,
        "given.seq": f"{SEQ_LEN:,}",
        "given.gpus": str(GPUS),
        "given.h200": gb(H200.memory_bytes),
        "answer.params": f"{params / 1e9:.2f} billion",
        "answer.bytes_per_param": str(sum(BYTES_PER_PARAMETER.values())),
        "answer.state": gb(state),
        "answer.selective_activations": gb(selective["activations"]),
        "answer.selective_total": gb(selective["total"]),
        "answer.full_activations": gb(full["activations"]),
        "answer.logits": gb(working("selective")["logits"]),
        "answer.recomputed": gb(working("full")["recomputed layer"]),
        "answer.full_total": gb(full["total"]),
        "answer.full_fits": "fits" if fits(full) else "does not fit",
        "answer.zero1_total": gb(zero1["total"]),
        "answer.zero3_total": gb(zero3["total"]),
        "answer.headroom": gb(H200.memory_bytes - zero1["total"]),
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>21}: {value}")
