"""The cases' inputs in memory the parent owns and the candidate can only
read (used by ``scripts/qualify/evaluator.py`` to pack them and by
``scripts/qualify/worker.py`` to map them).

The parent writes the bytes of every input storage of a run (and of every
refill's new values) into one ``memfd``, page-aligned, and seals it against
writing, growing and shrinking (``F_SEAL_WRITE | F_SEAL_GROW |
F_SEAL_SHRINK | F_SEAL_SEAL``): from then on no process, the parent
included, can change those bytes or map them writable. The file descriptor
reaches the fork server over a Unix socket (``SCM_RIGHTS``); the candidate's
process maps it ``PROT_READ``, closes it, and makes every input a tensor
over that mapping, with the layout the case asks for (views at offsets,
odd strides, zero strides, inputs that share one storage).

So on the CPU "inputs unchanged" is enforced: a write to an input faults.
A handler installed for ``SIGSEGV`` and ``SIGBUS`` notes, in the file
``fault``, whether the faulting address lies in an input, then lets the
signal end the process; the parent reports such an end as the
``inputs-unchanged`` check failing. The note is a claim of the candidate's
process (it can only change which check a rejection names, never make one
a pass); the parent's byte comparison stays as the second line. On a GPU the
inputs are copied to device memory, which no seal covers: there the byte
comparison is the only line, as before.

A call that reuses "the same buffers with new values" (a refill) gets them
by moving the refill's pages onto the inputs' addresses (``mremap``), so
the candidate sees the same pointers holding new values without anyone
writing to an input.
"""

from __future__ import annotations

import ctypes
import fcntl
import mmap
import os
import signal
from pathlib import Path

import torch

from scripts.qualify import records

PAGE = mmap.PAGESIZE
SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
#: Where the fault handler writes its note, in the job's directory.
FAULT_FILE = "fault"
#: The notes it writes (the parent reads nothing else from that file): the
#: position of the input written to, when it is known.
MAX_INPUTS = 8
FAULT_NOTES = (*(f"input {i}" for i in range(MAX_INPUTS)), "input", "elsewhere")

DTYPES = {
    str(d): d
    for d in (
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.float64,
        torch.int32,
        torch.int64,
        torch.uint8,
        torch.bool,
        torch.complex64,
        torch.float8_e4m3fn,
    )
}


def _round_up(nbytes: int) -> int:
    return -(-nbytes // PAGE) * PAGE


# --------------------------------------------------------------------------
# The parent: pack and seal
# --------------------------------------------------------------------------


class Packer:
    """Lays input storages out in one memfd; `region(tensor)` gives the
    descriptor the child maps, the same one for tensors sharing a storage."""

    def __init__(self):
        self.chunks: list[tuple[int, bytes]] = []
        self.size = 0
        self.seen: dict[tuple, dict] = {}

    def region(self, base: torch.Tensor, shared: bool = True) -> dict:
        """`shared`: tensors over the same bytes get one region (a new one
        for each call otherwise)."""
        key = (
            base.untyped_storage().data_ptr(),
            base.storage_offset(),
            tuple(base.shape),
            str(base.dtype),
        )
        if shared and key in self.seen:
            return self.seen[key]
        flat = base.detach().contiguous().reshape(-1)
        data = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
        offset = self.size
        self.chunks.append((offset, data))
        self.size += _round_up(max(len(data), 1))
        region = {
            "kind": "region",
            "offset": offset,
            "nbytes": len(data),
            "shape": list(base.shape),
            "dtype": str(base.dtype),
        }
        if shared:
            self.seen[key] = region
        return region

    def sealed_fd(self) -> int:
        """A memfd holding every region, sealed; the caller closes it."""
        fd = os.memfd_create("inputs", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(fd, max(self.size, PAGE))
            for offset, data in self.chunks:
                view = memoryview(data)
                while view:
                    written = os.pwrite(fd, view, offset)
                    view, offset = view[written:], offset + written
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)
        except BaseException:
            os.close(fd)
            raise
        return fd


def pack(built: list[list]) -> tuple[Packer, list[list[dict]]]:
    """(the packer, each case's child specs with regions in place of
    tensors) for `built` (each case's calls, scripts/qualify/builders.py)."""
    packer = Packer()
    specs = []
    for calls in built:
        case_specs = []
        bases: list[torch.Tensor] = []  # the current inputs' storages
        views: list[dict] = []
        for call in calls:
            spec = call.child_spec()
            if call.args:
                views = list(call.args)
                bases = [s.get("base") for s in views]
                for i, arg in enumerate(spec["args"]):
                    if isinstance(arg.get("base"), torch.Tensor):
                        spec["args"][i] = {**arg, "base": packer.region(arg["base"])}
            if call.refill is not None and all(torch.is_tensor(b) for b in bases):
                spec["refill"] = _refill_regions(packer, bases, views, call.refill)
                bases = [r["_tensor"] for r in spec["refill"]]
                for region in spec["refill"]:
                    region.pop("_tensor")
            case_specs.append(spec)
        specs.append(case_specs)
    return packer, specs


def _refill_regions(packer, bases, views, refill) -> list[dict]:
    """The storages after a refill (new values written into the current
    views, as the parent's pristine copy is built), one region each."""
    fresh: dict[int, torch.Tensor] = {}
    for base in bases:
        fresh.setdefault(id(base), base.clone())
    for base, view, values in zip(bases, views, refill, strict=True):
        target = fresh[id(base)]
        target.as_strided(view["size"], view["stride"], view["offset"]).copy_(values)
    made = {key: packer.region(tensor, shared=False) for key, tensor in fresh.items()}
    return [{**made[id(base)], "_tensor": fresh[id(base)]} for base in bases]


# --------------------------------------------------------------------------
# The child: map read-only, and note faults
# --------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
_libc.mremap.restype = ctypes.c_void_p
_libc.mremap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_void_p,
]
MAP_FAILED = ctypes.c_void_p(-1).value
MREMAP_MAYMOVE, MREMAP_FIXED = 1, 2


class Mapped:
    """The memfd mapped read-only in the candidate's process."""

    def __init__(self, fd: int):
        self.size = max(os.fstat(fd).st_size, PAGE)
        address = _libc.mmap(None, self.size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address in (None, MAP_FAILED):
            raise OSError(ctypes.get_errno(), "mapping the inputs failed")
        self.start = address
        self.end = address + self.size
        self.current: list[tuple[int, int, str]] = []  # this call's inputs

    def tensor(self, region: dict) -> torch.Tensor:
        """The region as a tensor of its dtype and shape; writes fault."""
        dtype = DTYPES[region["dtype"]]
        if not region["nbytes"]:
            return torch.empty(region["shape"], dtype=dtype)
        buffer = (ctypes.c_char * region["nbytes"]).from_address(
            self.start + region["offset"]
        )
        flat = torch.frombuffer(buffer, dtype=dtype)
        return flat.view(region["shape"])

    def move(self, source: dict, target: torch.Tensor) -> None:
        """Put `source`'s bytes at `target`'s address: same pointer, new
        values, nothing written (the source's pages move)."""
        length = _round_up(max(source["nbytes"], 1))
        address = target.untyped_storage().data_ptr()
        if not source["nbytes"]:
            return
        moved = _libc.mremap(
            self.start + source["offset"],
            length,
            length,
            MREMAP_MAYMOVE | MREMAP_FIXED,
            address,
        )
        if moved != address:
            raise OSError(ctypes.get_errno(), "moving a refill into place failed")

    def watch(self, tensors: list) -> None:
        """Name these storages (by position) in a fault note while the call
        runs."""
        self.current = []
        for name, tensor in enumerate(tensors):
            if isinstance(tensor, torch.Tensor) and tensor.device.type == "cpu":
                storage = tensor.untyped_storage()
                if self.start <= storage.data_ptr() < self.end:
                    start = storage.data_ptr()
                    self.current.append((start, start + storage.nbytes(), name))


_HANDLER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


class _SigAction(ctypes.Structure):
    _fields_ = [
        ("handler", ctypes.c_void_p),
        ("mask", ctypes.c_ulong * 16),
        ("flags", ctypes.c_int),
        ("restorer", ctypes.c_void_p),
    ]


SA_SIGINFO, SA_RESETHAND = 4, 0x80000000
_KEEP: list = []  # the handler must outlive this call


def note_faults(mapped: Mapped, note_fd: int) -> bool:
    """Install the SIGSEGV/SIGBUS handler (see the module docstring). It
    runs once (the default action is restored first), writes one note and
    returns, so the fault repeats and ends the process. True if installed."""

    def on_fault(signum, info, _context):
        code = ctypes.c_int.from_address(info + 8).value
        address = ctypes.c_void_p.from_address(info + 16).value or 0
        note = "elsewhere"
        if code > 0 and mapped.start <= address < mapped.end:  # sent by the kernel
            note = next(
                (f"input {n}" for lo, hi, n in mapped.current if lo <= address < hi),
                "input",
            )
        try:
            os.write(note_fd, note.encode() + b"\n")
        except OSError:
            pass
        if code <= 0:  # sent by kill(): re-raise it, now with the default action
            os.kill(os.getpid(), signum)

    # One torch thread: when a run's first write to an input was a large
    # in-place op, torch ran it on its thread pool in this forked process,
    # and the process died with no note (the verdict then named `completes`;
    # tests/scripts/qualify/test_shared_inputs.py reproduces it). On one
    # thread the fault reaches this Python handler on the calling thread.
    torch.set_num_threads(1)
    handler = _HANDLER_TYPE(on_fault)
    action = _SigAction()
    action.handler = ctypes.cast(handler, ctypes.c_void_p).value
    action.flags = SA_SIGINFO | SA_RESETHAND
    installed = True
    for signum in (signal.SIGSEGV, signal.SIGBUS):
        installed &= _libc.sigaction(signum, ctypes.byref(action), None) == 0
    _KEEP.append(handler)
    return installed


def input_written(work: Path, exit_code: int, names: tuple[str, ...]) -> str | None:
    """Why the child ended, if a memory fault on an input ended it: the
    inputs are mapped read-only, so a write to one faults
    (scripts/qualify/shared_inputs.py). None for any other end. `names`
    are the task's arguments, in order."""
    if -exit_code not in (signal.SIGSEGV, signal.SIGBUS):
        return None
    note = records.read_note(work / FAULT_FILE, FAULT_NOTES)
    if note is None or not note.startswith("input"):
        return None
    position = note.removeprefix("input").strip()
    name = names[int(position)] if position and int(position) < len(names) else ""
    name = name or "an input"
    signame = signal.Signals(-exit_code).name
    return (
        f"the call wrote to {name}: the inputs are mapped read-only, and the "
        f"write ended the candidate's process ({signame})"
    )
