"""Import another tool's result: ``python -m scripts.bench import FILE --tool T``.

Usage::

    python -m scripts.bench import FILE --tool nccl-tests --link nvlink \\
        --tool-version 2.17.6
    python -m scripts.bench import FILE --tool vllm --device "NVIDIA H200" \\
        --gpus 1 --engine-version 0.11.0 [--slo ttft:500 tpot:50]
    python -m scripts.bench import FILE --tool sglang --device "NVIDIA H200" \\
        --gpus 1 --engine-version 0.5.3 --model meta-llama/Llama-3.1-8B-Instruct

The file is read as a stranger's (``evidence.read_untrusted``: a regular
file, at most 16 MiB, strict JSON nested at most 32 deep), mapped by
``scripts.bench.importers``, validated against its kind's schema, checked by
``evidence.contributed`` (printable names, the run's own identities, the link
datasheet's bound) beside the files already there, and written under
``results/contributed/`` with a name made from its identity; nothing is
replaced. The device, GPU count and engine version come from the flags or,
for vLLM, from the file's ``--metadata device=... gpus=... engine_version=...``
keys. Exit 0 when every run was written, 2 with one line per refusal.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from evidence import (
    MAX_BYTES,
    ResultFileError,
    display_path,
    parse_untrusted,
    read_untrusted,
    sha256_bytes,
    slug,
    validate,
)
from evidence.contributed import CHECKS, DIRS, load_folder
from kernels.interconnects import LINKS
from scripts.bench import importers
from scripts.cli import OneLineParser

EXIT_OK, EXIT_REFUSED = 0, 2
KIND = {
    "nccl-tests": "contributed_collectives",
    "vllm": "contributed_serving",
    "sglang": "contributed_serving",
}
SLO_KEYS = ("ttft", "tpot", "e2el")
#: The most runs one SGLang file may hold (one line each): a sweep of
#: request rates is a handful; a file of thousands would flood the folder.
MAX_RUNS_PER_FILE = 64


def parse_args(argv):
    parser = OneLineParser(
        tool="import",
        exit_code=EXIT_REFUSED,
        prog="python -m scripts.bench import",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("path", type=Path, metavar="FILE")
    parser.add_argument("--tool", choices=tuple(KIND), required=True)
    parser.add_argument("--link", choices=tuple(LINKS), help="nccl-tests: the link")
    parser.add_argument("--tool-version", help="the benchmark tool's version")
    parser.add_argument("--device", help="serving: the GPU's name, as the driver says")
    parser.add_argument("--gpus", type=int, help="serving: GPUs the engine used")
    parser.add_argument("--engine-version", help="serving: the engine's version")
    parser.add_argument("--model", help="sglang: the model served")
    parser.add_argument("--slo", nargs="*", default=[], metavar="METRIC:MS")
    parser.add_argument("--results", type=Path, help="folder to write into")
    return parser.parse_args(argv)


def slo_ms(pairs: list[str]) -> dict[str, float]:
    """vLLM's ``--goodput`` syntax, ``ttft:500 tpot:50``, as a dict."""
    out = {}
    for pair in pairs:
        key, _, value = pair.partition(":")
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if key not in SLO_KEYS or not 0 < number < 1e7:
            raise ResultFileError(
                f"--slo: {pair[:40]!r} is not METRIC:MS with METRIC one of "
                f"{', '.join(SLO_KEYS)}"
            )
        out[key] = number
    return out


def serving_identity(args, data: dict, engine: str) -> dict:
    """Device, count and versions: a flag, else the vLLM file's metadata key;
    a flag and a key that disagree are refused."""
    found = {}
    for name, flag in (("device", args.device), ("gpus", args.gpus)):
        found[name] = _one_value(name, flag, data, args.path)
    found["engine_version"] = _one_value(
        "engine_version", args.engine_version, data, args.path
    )
    if isinstance(found["gpus"], str) and found["gpus"].isdigit():
        found["gpus"] = int(found["gpus"])
    if not isinstance(found["gpus"], int) or isinstance(found["gpus"], bool):
        raise ResultFileError(f"{args.path}: field 'gpus': not a count of GPUs")
    found["tool_version"] = args.tool_version or found["engine_version"]
    found["engine"] = engine
    return found


def _one_value(name: str, flag, data: dict, path: Path):
    key = data.get(name) if isinstance(data, dict) else None
    if flag is not None and key is not None and str(flag) != str(key):
        raise ResultFileError(
            f"{path}: field '{name}': the file says {str(key)[:40]!r}, the flag "
            f"{str(flag)[:40]!r}"
        )
    value = flag if flag is not None else key
    if value is None:
        option = "--" + name.replace("_", "-")
        raise ResultFileError(
            f"{path}: field '{name}': missing; give {option} (or, for vLLM, "
            f"--metadata {name}=... when running the benchmark)"
        )
    return value


def mapped_runs(args, raw: bytes, shown: str) -> list[dict]:
    """The tool's file as contributed runs (a SGLang file may hold several)."""
    sha = sha256_bytes(raw)
    if args.tool == "nccl-tests":
        if not args.link or not args.tool_version:
            raise ResultFileError(
                f"{shown}: nccl-tests needs --link and --tool-version"
            )
        data = parse_untrusted(raw, shown)
        return [
            importers.from_nccl_tests(
                data, shown, sha, link=args.link, tool_version=args.tool_version
            )
        ]
    if args.tool == "vllm":
        data = parse_untrusted(raw, shown)
        ident = serving_identity(args, data, "vllm")
        slos = slo_ms(args.slo)
        return [importers.from_vllm(data, shown, sha, identity=ident, slo_ms=slos)]
    return sglang_runs(args, raw, shown, sha)


def sglang_runs(args, raw: bytes, shown: str, sha: str) -> list[dict]:
    if not args.model:
        raise ResultFileError(f"{shown}: field 'model': missing; give --model")
    lines = raw.splitlines()
    if sum(1 for text in lines if text.strip()) > MAX_RUNS_PER_FILE:
        raise ResultFileError(
            f"{shown}: more than {MAX_RUNS_PER_FILE} runs in one file; import a "
            "sweep at a time"
        )
    runs = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        where = f"{shown} line {number}"
        data = parse_untrusted(text, where, non_finite_keys={"request_rate"})
        ident = serving_identity(args, {}, "sglang")
        runs.append(
            importers.from_sglang_line(
                data, where, sha, line=number, identity=ident, model=args.model
            )
        )
    if not runs:
        raise ResultFileError(f"{shown}: no runs in the file")
    return runs


def target_name(data: dict) -> str:
    ident = data["identity"]
    parts = [
        slug(data["source"]),
        slug(data["device"]["name"]),
        ident["source_sha256"][:12],
    ]
    if ident.get("line"):
        parts.append(f"line{ident['line']}")
    return "-".join(parts) + ".json"


def write_run(kind: str, data: dict, folder: Path, shown: str) -> Path:
    """Validate, check beside the folder's files, and link into place."""
    validate(kind, data, shown)
    CHECKS[kind](data, shown)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / target_name(data)
    if target.exists():
        raise ResultFileError(f"{shown}: {target.name} exists already; not replaced")
    from evidence import dumps

    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(dumps(data))
        load_folder(kind, folder, adding=Path(temporary))
        os.link(temporary, target)  # fails, rather than replaces, if it exists
    finally:
        os.unlink(temporary)
    return target


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    shown = display_path(args.path)
    kind = KIND[args.tool]
    folder = args.results or DIRS[kind]
    try:
        raw = read_untrusted(args.path, shown, MAX_BYTES)
        runs = mapped_runs(args, raw, shown)
        for run in runs:  # every run checked before any is written
            validate(kind, run, shown)
            CHECKS[kind](run, shown)
        written = [write_run(kind, run, folder, shown) for run in runs]
    except ResultFileError as exc:
        print(f"import: refused: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as exc:
        print(f"import: could not read or write: {exc.strerror}", file=sys.stderr)
        return EXIT_REFUSED
    for path in written:
        print(f"import: accepted as {display_path(path)}; commit it")
    return EXIT_OK
