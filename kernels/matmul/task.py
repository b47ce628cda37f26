"""The qualification task of the tiled matmul (``kernels/matmul/``): what
``python -m scripts.qualify --task matmul FILE`` needs to know, as data.
The reference and the error bound are the descriptor's; the result has the
reference's shape, (M, N). float32 operands must get IEEE products: a
float32 ``tl.dot`` left at Triton's default precision runs as TF32 on a
GPU, and is judged so here (the ``float32`` case)."""

CORPUS = "tests/scripts/qualify/candidates/matmul"


def bound_shape(views) -> dict:
    """The shape the descriptor's error bound reads: M, N and K."""
    (M, K), N = views[0].shape, views[1].shape[1]
    return {"M": M, "N": N, "K": K}


TASK = {
    "name": "matmul",
    "function": "matmul",
    "args": ("a", "b"),
    "kernel_file": "kernels/matmul/versions.py",
    "descriptor": "kernels.matmul.describe",
    "cases": "matrix-product",
    "corpus": CORPUS,
    "tolerance": "bound",
    "output": "reference",
    "bound_shape": bound_shape,
    # For a check or a case, the corpus candidate only it catches.
    "only_catches": {
        "float32": f"{CORPUS}/broken/tf32_default_dot.py",
        "transposed": f"{CORPUS}/broken/assumes_row_major.py",
        "long-k": f"{CORPUS}/broken/half_accumulator.py",
        "empty-k": f"{CORPUS}/broken/empty_for_k_zero.py",
        "output-type": f"{CORPUS}/broken/float32_result.py",
        "error-message": f"{CORPUS}/broken/vague_errors.py",
    },
}
