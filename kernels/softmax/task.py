"""The qualification task of the row softmax (``kernels/softmax/``): what
``python -m scripts.qualify --task softmax FILE`` needs to know, as data.
The reference and the error bound are the descriptor's."""

CORPUS = "tests/scripts/qualify/candidates/softmax"

TASK = {
    "name": "softmax",
    "function": "softmax",
    "args": ("x",),
    "kernel_file": "kernels/softmax/versions.py",
    "descriptor": "kernels.softmax.describe",
    "cases": "rows",
    "corpus": CORPUS,
    "tolerance": "bound",
    "catches": {"large-values": "no max subtracted: exp overflows to inf"},
}
