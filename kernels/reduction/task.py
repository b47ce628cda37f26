"""The qualification task of the sum reduction (``kernels/reduction/``):
what ``python -m scripts.qualify --task reduction FILE`` needs to know, as
data. The reference and the error bound are the descriptor's; the result is
a 0-d tensor of the input's dtype, as the reference's."""

CORPUS = "tests/scripts/qualify/candidates/reduction"

TASK = {
    "name": "reduction",
    "function": "reduce_sum",
    "args": ("x",),
    "kernel_file": "kernels/reduction/versions.py",
    "descriptor": "kernels.reduction.describe",
    "cases": "flat",
    "corpus": CORPUS,
    "tolerance": "bound",
    "output": "reference",
}
