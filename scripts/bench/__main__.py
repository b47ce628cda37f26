"""Time kernels against PyTorch; write ``results/bench/*.json``.

Usage::

    python -m scripts.bench site [--only NAME ...]  (the project's budgets)
    python -m scripts.bench import FILE --tool nccl-tests|vllm|sglang ...
                            (another tool's result: scripts/bench/import_cli.py)
    python -m scripts.bench plan [KERNEL ...] [--profile P] [--device D] [--out F]
    python -m scripts.bench --manifest F --cell N [--out DIR]  (one job's cell)
    python -m scripts.bench [KERNEL ...] [--profile tiny|quick|full|compare]
                            [--device cuda|cpu] [--out DIR]

``make bench`` runs ``python -m scripts.bench --profile full``. The kernels
and their shapes come from each module's ``DESCRIPTOR``
(``kernels.descriptor.discover()``); ``--list`` prints them.

Exit codes:
    0  every row correct and plausible
    2  usage error (unknown kernel, bad option, TRITON_INTERPRET=1 on a GPU)
    3  ``--device cuda`` asked for (the default) but no CUDA device is present
    4  the run finished, but some row failed correctness, raised an error, or
       was flagged as implausible (the file records which and why)
    130  interrupted (Ctrl-C); the file keeps the rows measured so far

Every error is one line on stderr, without a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from evidence.method import PROFILES
from scripts.cli import OneLineParser

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_CUDA = 3


def parse_args(argv):
    parser = OneLineParser(
        tool="bench",
        exit_code=EXIT_USAGE,
        prog="python -m scripts.bench",
        description="Time kernels against PyTorch; write results/bench/*.json.",
        epilog="Exit codes: 0 ok, 2 usage, 3 no CUDA device, "
        "4 some row incorrect/failed/implausible, 130 interrupted.",
    )
    parser.add_argument("kernels", nargs="*", metavar="KERNEL")
    parser.add_argument("--profile", choices=PROFILES, default="quick")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--commit", help="commit to record when the tree is not a git checkout"
    )
    parser.add_argument("--seed", type=int, help="input seed (default: random)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--list", action="store_true", help="list kernels, shapes")
    parser.add_argument("--manifest", type=Path, help="a plan's manifest")
    parser.add_argument("--cell", type=int, help="the manifest cell to run")
    args = parser.parse_args(argv)
    args.argv = list(argv)
    return args


def apply_cell(args) -> bool:
    """Narrow the run to one manifest cell: its kernel, profile, device
    class and shape; False (with one line said) when the cell is unusable."""
    from evidence import ResultFileError
    from scripts.bench.plan import read_cell

    try:
        cell, args.cell_record = read_cell(args.manifest, args.cell)
    except ResultFileError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return False
    args.kernels, args.profile = [cell["kernel"]], cell["profile"]
    args.device, args.only_shape = cell["device_class"], cell["shape"]
    return True


def list_descriptors(descriptors, out=None):
    out = out or sys.stdout
    for name, desc in descriptors.items():
        print(name, file=out)
        for profile in PROFILES:
            for device in ("cuda", "cpu"):
                shapes = desc.shapes_for(profile, device)
                text = ", ".join(desc.shape_text(s) for s in shapes) or "none"
                print(f"  {profile} ({device}): {text}", file=out)


#: The commands that time no kernel, each its own module's main.
SUBCOMMANDS = {
    "site": "scripts.bench.site",  # the project's own speed budgets
    "import": "scripts.bench.import_cli",  # nccl-tests, vLLM or SGLang results
    "plan": "scripts.bench.plan",  # a job manifest for a cluster
}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in SUBCOMMANDS:
        import importlib

        return importlib.import_module(SUBCOMMANDS[argv[0]]).main(argv[1:])
    args = parse_args(argv)
    if (args.manifest is None) != (args.cell is None):
        print("bench: --manifest and --cell go together", file=sys.stderr)
        return EXIT_USAGE
    if args.manifest is not None and not apply_cell(args):
        return EXIT_USAGE
    import torch  # reads no TRITON_INTERPRET; kernels are imported later

    if args.device == "cuda" and not args.list and not torch.cuda.is_available():
        print(
            "bench: no CUDA device is available (torch "
            f"{torch.__version__}, CUDA {torch.version.cuda}). To run the same "
            "harness on CPU tensors with host timers, use --device cpu.",
            file=sys.stderr,
        )
        return EXIT_NO_CUDA
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before any kernel is imported
    elif os.environ.get("TRITON_INTERPRET") == "1" and not args.list:
        print(
            "bench: TRITON_INTERPRET=1 would time the Triton interpreter on a "
            "GPU run; unset it.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from kernels.descriptor import discover
    from scripts.bench import runner

    try:
        present = discover()
    except Exception as exc:  # a kernel module that does not import
        print(f"bench: could not load the kernel descriptors: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.list:
        list_descriptors(present)
        return EXIT_OK
    names = args.kernels or list(present)
    unknown = [n for n in names if n not in present]
    if unknown:
        print(
            f"bench: unknown or unwritten kernel(s) {', '.join(unknown)}; "
            f"available: {', '.join(present) or 'none'}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.out is None:
        args.out = runner.DEFAULT_OUT
    try:
        return runner.run(args, {name: present[name] for name in names})
    except Exception as exc:  # the file records "failed"; say why in one line
        print(f"bench: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
