"""The qualification task of the inclusive scan (``kernels/scan/``): what
``python -m scripts.qualify --task scan FILE`` needs to know, as data. The
reference and the error bound are the descriptor's."""

CORPUS = "tests/scripts/qualify/candidates/scan"

TASK = {
    "name": "scan",
    "function": "cumsum",
    "args": ("x",),
    "kernel_file": "kernels/scan/versions.py",
    "descriptor": "kernels.scan.describe",
    "cases": "flat",
    "corpus": CORPUS,
    "tolerance": "bound",
    "rank": 1,
}
