"""The qualification task of the transpose (``kernels/transpose/``): what
``python -m scripts.qualify --task transpose FILE`` needs to know, as data.
The reference is the descriptor's, and its error bound is exact (a copy);
the result has the reference's shape, the input's transposed."""

CORPUS = "tests/scripts/qualify/candidates/transpose"

TASK = {
    "name": "transpose",
    "function": "transpose",
    "args": ("x",),
    "kernel_file": "kernels/transpose/versions.py",
    "descriptor": "kernels.transpose.describe",
    "cases": "rows",
    "corpus": CORPUS,
    "tolerance": "bound",
    "output": "reference",
    "rank": 2,
    "catches": {
        "wide-row": "a tile that must divide the width",
        "large-values": "values changed on the way (a copy must be exact)",
        "transposed": "an input already transposed: strides ignored",
    },
}
