"""The qualification task of causal attention forward
(``kernels/attention/``): what ``python -m scripts.qualify --task attention
FILE`` needs to know, as data. A candidate defines ``causal_attention(q, k,
v)``; the answer is the descriptor's reference with ``causal=True``, judged
within the descriptor's error bound. float32 inputs must get IEEE products:
a float32 ``tl.dot`` left at Triton's default precision runs as TF32 on a
GPU, and is judged so here (the ``float32`` case)."""

from kernels.attention.versions import attention_ref

CORPUS = "tests/scripts/qualify/candidates/attention"


def causal_reference(q, k, v):
    """Eager causal attention: query i sees keys 0..i."""
    return attention_ref(q, k, v, causal=True)


def bound_shape(views) -> dict:
    """The shape the descriptor's error bound reads: S, and causal."""
    return {"S": views[0].shape[-2], "causal": True}


TASK = {
    "name": "attention",
    "function": "causal_attention",
    "args": ("q", "k", "v"),
    "kernel_file": "kernels/attention/versions.py",
    "descriptor": "kernels.attention.describe",
    "cases": "qkv-causal",
    "corpus": CORPUS,
    "tolerance": "bound",
    "reference": causal_reference,
    "bound_shape": bound_shape,
    # For a check or a case, the corpus candidate only it catches.
    "only_catches": {
        "float32": f"{CORPUS}/broken/tf32_default_dot.py",
        "large-scores": f"{CORPUS}/broken/no_max_subtraction.py",
        "ragged-s": f"{CORPUS}/broken/drops_ragged_keys.py",
        "bshd-layout": f"{CORPUS}/broken/assumes_contiguous.py",
        "error-type": f"{CORPUS}/broken/no_validation.py",
    },
}
