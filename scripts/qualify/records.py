"""The only files the evaluator reads back from its sandboxed child, and the
strict readers that check them (used by ``scripts/qualify/worker.py`` to
write and ``scripts/qualify/evaluator.py`` to read).

The child runs the candidate, so every byte it writes may be forged. The
parent therefore reads nothing it would execute (no pickle) and checks every
file before using it; a file that breaks a rule is a rejection that names
the file and the rule (``RecordError``), never a traceback.

* **Tensor bundles** (``*.safetensors``): the bytes of tensors in the
  safetensors format (an 8-byte header length, a JSON header, the data),
  written and parsed by the ``safetensors`` library, which refuses
  overlapping, short or uncovered offsets itself. Around it, the parent keeps
  its own guards: a regular file opened without following links, no longer
  than the parent expects, a header under ``MAX_HEADER_BYTES``, tensor names
  of a fixed form, and only the dtypes a candidate may return. Values,
  mutations and earlier results are judged from these bytes.
* **Claims** (``*.json``): what the child says happened that bytes cannot
  show (which kernels it launched, what an exception said). Parsed with a
  size limit and checked key by key against ``CLAIM_SHAPES``; the verdict
  calls them claims of the sandboxed child.
* **Progress** (``progress``): lines ``import``, ``start N``, ``end N``.
* **Fault note** (``fault``): one line from the memory-fault handler of
  ``scripts/qualify/shared_inputs.py``, read only after the child died of
  ``SIGSEGV`` or ``SIGBUS``.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

import safetensors.torch
import torch

MAX_HEADER_BYTES = 1 << 20
MAX_CLAIM_BYTES = 4 << 20
MAX_PROGRESS_BYTES = 1 << 16
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
PROGRESS_RE = re.compile(r"^(import|start \d{1,4}|end \d{1,4})$")
#: The dtypes a bundle may hold, by their safetensors names.
SAFETENSORS_DTYPES = ("F32", "F16", "BF16", "F64", "I32", "I64", "U8", "BOOL")


class RecordError(Exception):
    """A child file that breaks its format: tampering, or a crash mid-write."""

    def __init__(self, path: Path | str, problem: str):
        self.file = Path(path).name
        self.problem = problem
        super().__init__(f"{self.file}: {problem}")


# --------------------------------------------------------------------------
# Tensor bundles
# --------------------------------------------------------------------------


def write_tensors(path: Path, tensors: dict[str, torch.Tensor]) -> None:
    """Write `tensors` (CPU copies are taken) as one bundle, atomically."""
    flat = {
        name: tensor.detach().to("cpu").contiguous().clone()
        for name, tensor in tensors.items()
    }
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(safetensors.torch.save(flat))
    os.replace(tmp, path)


def _open_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file (no symlink, no FIFO, not over `limit`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RecordError(path, f"cannot be opened as a plain file ({exc})") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RecordError(path, "is not a plain file")
        if info.st_size > limit:
            raise RecordError(path, f"is {info.st_size} bytes, over the {limit} limit")
        with os.fdopen(fd, "rb", closefd=False) as file:
            return file.read(limit + 1)
    finally:
        os.close(fd)


def read_tensors(path: Path, limit: int = 1 << 34) -> dict[str, torch.Tensor]:
    """Read a bundle of at most `limit` bytes, checking every rule;
    RecordError names the broken one."""
    data = _open_regular(path, limit)
    if len(data) < 8:
        raise RecordError(path, "ends inside its header")
    size = int.from_bytes(data[:8], "little")
    if size > MAX_HEADER_BYTES or 8 + size > len(data):
        raise RecordError(path, f"declares a header of {size} bytes")
    try:
        header = json.loads(data[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        problem = f"header is not JSON ({exc.__class__.__name__})"
        raise RecordError(path, problem) from None
    if not isinstance(header, dict):
        raise RecordError(path, "header is not an object")
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise RecordError(path, f"bad tensor name {name!r:.40}")
        dtype = entry.get("dtype") if isinstance(entry, dict) else None
        if dtype not in SAFETENSORS_DTYPES:
            raise RecordError(path, f"tensor {name!r}: unknown dtype {dtype!r:.40}")
    try:
        tensors = safetensors.torch.load(data)
    except Exception as exc:  # the library's SafetensorError, and kin
        text = " ".join(str(exc).split())[:120]
        raise RecordError(path, f"is not a valid bundle ({text})") from None
    # Row-major order as written: the header's own order is by offset.
    order = sorted(
        (n for n in header if n != "__metadata__"),
        key=lambda n: header[n]["data_offsets"][0],
    )
    return {name: tensors[name] for name in order}


# --------------------------------------------------------------------------
# Claims and progress
# --------------------------------------------------------------------------

# A claim file's shape: key -> type, or a nested shape. "?" marks optional.
STR, INT, BOOL, NUM = str, int, bool, float
EXCEPTION = {"type": STR, "mro": [STR], "message": STR}
LAUNCH = {
    "kernel": STR,
    "own": BOOL,
    "grid": ("?", [INT]),
    "violation": ("?", STR),
    "programs_run": BOOL,
    "writes_output": BOOL,
    "tf32_dots": INT,  # float32 tl.dot calls run as TF32 (operands rounded)
    "compiled": BOOL,
    "compile_error": ("?", STR),
    "specialisation": ("?", STR),  # compiled by the parent (compile_check.py)
}
OUTPUT = {
    "plain": BOOL,
    "type": STR,
    "shape": ("?", [INT]),
    "dtype": ("?", STR),
    "device": ("?", STR),
    "aliases": ("?", [STR]),
    "storage_nbytes": ("?", INT),
    "storage_offset": ("?", INT),
}
RACE = {
    "kernel": STR,
    "programs": [[INT]],
    "kinds": [STR],
    "tensor": STR,
    "element": INT,
}
CALL = {
    "raised": ("?", EXCEPTION),
    "launches": [LAUNCH],
    "input_device": ("?", STR),
    "output": ("?", OUTPUT),
    "inputs_written": [STR],
    "state_changed": [STR],
    "earlier_changed": [STR],
    "race": ("?", RACE),  # the first race of its launches (races.py)
}
CLAIM_SHAPES = {
    "case": {"name": STR, "seconds": NUM, "calls": [CALL]},
    "status": {
        "stage": STR,
        "type": ("?", STR),
        "message": ("?", STR),
        "cpu_s": ("?", NUM),
    },
}


def _check(value, shape, where: str, path) -> None:
    if isinstance(shape, tuple):  # optional
        if value is not None:
            _check(value, shape[1], where, path)
        return
    if isinstance(shape, list):
        if not isinstance(value, list) or len(value) > 10_000:
            raise RecordError(path, f"{where} is not a list")
        for i, item in enumerate(value):
            _check(item, shape[0], f"{where}[{i}]", path)
        return
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise RecordError(path, f"{where} is not an object")
        if set(value) != set(shape):
            odd = sorted(set(value) ^ set(shape))[:3]
            raise RecordError(path, f"{where} has other keys than expected: {odd}")
        for key, sub in shape.items():
            _check(value[key], sub, f"{where}.{key}", path)
        return
    ok = (
        (shape is NUM and type(value) in (int, float) and math.isfinite(value))
        or (shape is INT and type(value) is int)
        or (shape is not NUM and shape is not INT and type(value) is shape)
    )
    if not ok:
        raise RecordError(path, f"{where} is not a {shape.__name__}")


def read_claim(path: Path, kind: str) -> dict:
    """Read a claim file and check it against CLAIM_SHAPES[kind]."""
    data = _open_regular(path, MAX_CLAIM_BYTES)
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RecordError(path, f"is not JSON ({exc.__class__.__name__})") from None
    _check(value, CLAIM_SHAPES[kind], kind, path)
    return value


def write_claim(path: Path, value: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value))
    os.replace(tmp, path)


def read_note(path: Path, allowed: tuple[str, ...]) -> str | None:
    """A one-line note (``fault``), if it is one of `allowed`; else None
    (missing, not a plain file, or anything else)."""
    try:
        data = _open_regular(path, 64)
    except (OSError, RecordError):
        return None
    note = data.decode("ascii", errors="replace").strip()
    return note if note in allowed else None


def read_progress(path: Path) -> list[str]:
    """The progress lines so far (a last line still being written is left
    for later); any other line is a RecordError."""
    try:
        data = _open_regular(path, MAX_PROGRESS_BYTES)
    except FileNotFoundError:
        return []
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise RecordError(path, "holds bytes that are not ASCII") from None
    lines = text.split("\n")[:-1]  # only complete lines
    for line in lines:
        if not PROGRESS_RE.match(line):
            raise RecordError(path, f"holds an unexpected line {line[:40]!r}")
    return lines
