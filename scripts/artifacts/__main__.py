"""``python -m scripts.artifacts [KERNEL ...] [--out DIR]``: rebuild the
artifacts of these kernels (default: every kernel with artifact builds)."""

import os
import sys

from scripts.artifacts.build import main


def run() -> int:
    # Compile, do not interpret. Triton reads this when a kernel module's
    # @triton.jit runs, and main() imports the kernel modules only now.
    os.environ["TRITON_INTERPRET"] = "0"
    return main()


if __name__ == "__main__":
    sys.exit(run())
