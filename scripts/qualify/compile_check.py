"""The sm_90a compile check, run by the parent per specialisation (used by
``scripts/qualify/evaluator.py``; the candidate's process only reports its
launches, through ``scripts/qualify/launch_log.py``).

Three parts:

* ``launch_specialisation`` (in the candidate's process): what Triton would
  compile a separate binary for at one launch: each parameter's type and
  divisibility key (Triton's own ``specialize_impl``), the constexprs'
  values, ``num_warps`` and ``num_stages``. It is a claim: it only says
  *what* to compile.
* ``scripts/qualify/compile_server.py``: a compile process
  the parent starts, not interpreted (``TRITON_INTERPRET`` unset), in the
  same sandbox as the candidate (bubblewrap or the fallback, as ``nobody``
  when root). It reads the parent's private copy of the source, takes the
  kernels from its syntax tree (no statement of the module runs: each
  kernel is defined bare in the namespace the tree gives, with the
  ``triton`` and ``math`` imports and the globals whose values fold),
  and compiles each requested specialisation with ``triton.compile`` for a
  CUDA sm_90a target, which needs no GPU (as ``scripts/artifacts`` does).
* ``Compiler`` (in the parent): one warm compile process for the evaluator's
  life, a deadline, at most ``MAX_SPECIALISATIONS`` per run, and results
  cached by (source sha256, specialisation). The parent decides pass/fail
  from the compile process's answer, never from the child's claims.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import select
import subprocess
import sys
import time

from kernels.devices import SM90A, WARP_SIZE

#: Distinct specialisations one run may ask to compile; past that, the
#: compile check fails and says so.
MAX_SPECIALISATIONS = 64
#: Seconds all of a run's compiles may take.
COMPILE_DEADLINE_S = 120.0
MAX_SPEC_CHARS = 8000
TARGET = ("cuda", SM90A.compute_capability, WARP_SIZE)
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
_TYPE_RE = re.compile(r"^(constexpr|\*{0,2}k?[a-z][a-z0-9]{0,7})$")
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


class SpecError(ValueError):
    """A specialisation claim that is not in its format."""


# --------------------------------------------------------------------------
# In the candidate's process: what one launch specialises on
# --------------------------------------------------------------------------


def launch_specialisation(fn, args, kwargs) -> dict:
    """The specialisation of one launch of the Python function `fn` (see
    the module docstring), as JSON-ready data."""
    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend

    params = []
    for index, param in enumerate(inspect.signature(fn).parameters.values()):
        if index < len(args):
            value = args[index]
        elif param.name in kwargs:
            value = kwargs[param.name]
        elif param.default is not inspect.Parameter.empty:
            value = param.default
        else:
            params.append([param.name, "missing", None])
            continue
        if "constexpr" in str(param.annotation):
            params.append([param.name, "constexpr", _constant(value)])
            continue
        try:
            kind, key = native_specialize_impl(BaseBackend, value, False, True, True)
        except TypeError:
            kind, key = "unsupported", type(value).__name__
        if not isinstance(kind, str):  # a tuple argument
            kind, key = "unsupported", "tuple"
        elif kind == "constexpr":  # Triton makes 1 and None constants
            key = _constant(key)
        params.append([param.name, kind, key])
    options = {
        k: kwargs[k] for k in OPTIONS if type(kwargs.get(k)) is int and k in kwargs
    }
    return {
        "kernel": fn.__name__,
        "qualname": fn.__qualname__,
        "params": params,
        "options": options,
    }


def _constant(value):
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if value == value and abs(value) != float("inf") else str(value)
    if type(value).__name__ in ("dtype", "pointer_type") and hasattr(value, "name"):
        return {"dtype": str(value)}
    return {"unsupported": type(value).__name__}


# --------------------------------------------------------------------------
# In the parent: the claim checked, and its cache key
# --------------------------------------------------------------------------


def parse_specialisation(text: str) -> dict:
    """A launch's specialisation claim, checked piece by piece; SpecError
    names what is wrong."""
    if not isinstance(text, str) or len(text) > MAX_SPEC_CHARS:
        raise SpecError("the specialisation is too long")
    try:
        spec = json.loads(text)
    except (ValueError, RecursionError):
        raise SpecError("the specialisation is not JSON") from None
    if not isinstance(spec, dict) or set(spec) != {
        "kernel",
        "qualname",
        "params",
        "options",
    }:
        raise SpecError("the specialisation has other keys than expected")
    if not _is_name(spec["kernel"]) or not isinstance(spec["qualname"], str):
        raise SpecError("the kernel's name is not an identifier")
    params = spec["params"]
    if not isinstance(params, list) or len(params) > 64:
        raise SpecError("the parameters are not a short list")
    for item in params:
        ok = isinstance(item, list) and len(item) == 3 and _is_name(item[0])
        if not ok or not isinstance(item[1], str):
            raise SpecError("a parameter is not [name, type, value]")
        if item[1] not in ("missing", "unsupported") and not _TYPE_RE.match(item[1]):
            raise SpecError(f"parameter {item[0]} has an unknown type")
        if not _plain(item[2]):
            raise SpecError(f"parameter {item[0]} has a value that is not plain")
    options = spec["options"]
    if not isinstance(options, dict) or not all(
        k in OPTIONS and type(v) is int and 0 < v <= 1024 for k, v in options.items()
    ):
        raise SpecError("the options are not num_warps, num_stages and kin")
    return spec


def _is_name(value) -> bool:
    return isinstance(value, str) and bool(_NAME_RE.match(value))


def _plain(value) -> bool:
    if value is None or type(value) in (bool, int, float, str):
        return not isinstance(value, str) or len(value) <= 200
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        return key in ("dtype", "unsupported") and isinstance(inner, str)
    return False


def claimed_kernel(text: str) -> str | None:
    """The kernel a specialisation claim names, or None."""
    try:
        return parse_specialisation(text)["kernel"]
    except SpecError:
        return None


def spec_key(spec: dict) -> str:
    """The canonical text of a specialisation (the cache's key, with the
    source's sha256)."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------------------------
# The parent's client
# --------------------------------------------------------------------------


class Compiler:
    """The parent's handle on the compile process (see the docstring)."""

    _instance: Compiler | None = None
    cache: dict[tuple[str, str], str | None] = {}

    def __init__(self):
        from scripts.qualify import sandbox

        self.root = sandbox.make_jobs_dir("cpu")
        self.sources = self.root / "sources"
        self.work = self.root / "work"
        self.sources.mkdir(mode=0o755)
        self.work.mkdir(mode=0o700)
        if os.geteuid() == 0:
            os.chown(self.work, sandbox.NOBODY, sandbox.NOBODY)
        bwrap = sandbox.bwrap_works()
        inside_work = sandbox.INSIDE_JOBS if bwrap else str(self.work)
        self.inside_sources = INSIDE_SOURCES if bwrap else str(self.sources)
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        env.update(
            TRITON_CACHE_DIR=f"{inside_work}/cache",
            TRITON_HOME=inside_work,
            TRITON_DISABLE_LINE_INFO="1",
            TMPDIR=inside_work,
            HOME=inside_work,
            PYTHONDONTWRITEBYTECODE="1",  # candidates' code never writes a .pyc
        )
        command = [sys.executable, "-m", "scripts.qualify.compile_server"]
        if bwrap:
            sources = ["--ro-bind", str(self.sources), INSIDE_SOURCES]
            command = sandbox.bwrap_args(self.work, "cpu") + sources + command
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=sandbox.REPOSITORY,
            env=env,
            start_new_session=True,
        )
        self.next_id = 0
        self.pending_bytes = b""  # read from the process, not yet a line
        import atexit

        atexit.register(self.close)

    @classmethod
    def get(cls) -> Compiler:
        if cls._instance is None or cls._instance.process.poll() is not None:
            if cls._instance is not None:
                cls._instance.close()
            cls._instance = Compiler()
        return cls._instance

    def source_path(self, source: bytes) -> tuple[str, str]:
        """(sha256, the path the compile process reads): the parent's own
        copy of the bytes it read, written afresh for each run."""
        sha = hashlib.sha256(source).hexdigest()
        path = self.sources / f"{sha}.py"
        tmp = self.sources / f".{sha}.tmp"
        tmp.write_bytes(source)
        tmp.chmod(0o444)
        os.replace(tmp, path)
        return sha, f"{self.inside_sources}/{sha}.py"

    def compile(self, source_at: str, specs: list[dict], deadline: float) -> list:
        """Errors (None: compiled) for each spec, in order, by `deadline`
        (time.monotonic()); past it, the process is stopped and the rest
        fail with the reason."""
        ids = {}
        for spec in specs:
            ids[self.next_id] = len(ids)
            request = {"id": self.next_id, "source": source_at, "spec": spec}
            self.next_id += 1
            try:
                self.process.stdin.write(json.dumps(request).encode() + b"\n")
            except (BrokenPipeError, OSError):
                break
        results: list = ["the compile process stopped answering"] * len(specs)
        try:
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return results
        pending = set(ids)
        while pending:
            line = self._line(deadline)
            if line is None:
                self.close()
                for number in pending:
                    results[ids[number]] = (
                        f"compiling did not finish within {COMPILE_DEADLINE_S:g} s "
                        "(or by the run's deadline)"
                    )
                break
            if not line:
                self.close()
                break
            try:
                reply = json.loads(line)
            except (ValueError, RecursionError):
                reply = None
            if not isinstance(reply, dict):  # not the compile process's own
                self.close()
                break
            if type(reply.get("id")) is int and reply["id"] in pending:
                pending.discard(reply["id"])
                error = reply.get("error")
                results[ids[reply["id"]]] = str(error)[:400] if error else None
        return results

    def _line(self, deadline: float) -> bytes | None:
        """The next reply line (b"" once the process has ended), None past
        `deadline`. Read unbuffered, so no reply waits in a buffer that
        select() cannot see."""
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending_bytes:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b""
            self.pending_bytes += chunk
            if len(self.pending_bytes) > 1 << 20:  # no reply is this long
                return b""
        line, self.pending_bytes = self.pending_bytes.split(b"\n", 1)
        return line + b"\n"

    def close(self) -> None:
        from scripts.qualify import sandbox

        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        sandbox.remove_jobs_dir(self.root)
        if Compiler._instance is self:
            Compiler._instance = None


INSIDE_SOURCES = "/tmp/qualify-sources"
#: Failures of the compile process rather than of the kernel: not cached.
TRANSIENT = ("the compile process", "compiling did")


class RunCompiles:
    """One run's compile check: which specialisations were asked for, and
    their results (cached across runs by source and specialisation)."""

    def __init__(self, source: bytes, run_deadline: float | None = None):
        self.source = source
        self.sha = hashlib.sha256(source).hexdigest()
        self.asked: set[str] = set()
        self.deadline = None
        # The run's own deadline (time.monotonic()): compiles stop there too,
        # so a candidate that floods the queue cannot hold the parent past it.
        self.run_deadline = run_deadline
        self.compiler = self.source_at = None

    def start(self) -> RunCompiles:
        """Start the compile process now (its start then overlaps the
        candidate's import) and hand it this run's copy of the source; a
        new process (the last one was stopped) gets the copy again."""
        compiler = Compiler.get()
        if compiler is not self.compiler:
            self.compiler = compiler
            self.source_at = compiler.source_path(self.source)[1]
        return self

    def check(self, texts: list[str]) -> list[str | None]:
        """The compile error (None: compiled) for each launch's claimed
        specialisation text."""
        results: list[str | None] = [None] * len(texts)
        todo: dict[str, list[int]] = {}
        specs: dict[str, dict] = {}
        for index, text in enumerate(texts):
            try:
                spec = parse_specialisation(text)
            except SpecError as exc:
                results[index] = f"the launch's record is malformed: {exc}"
                continue
            key = spec_key(spec)
            if (self.sha, key) in Compiler.cache:
                results[index] = Compiler.cache[(self.sha, key)]
                continue
            if key not in self.asked and len(self.asked) >= MAX_SPECIALISATIONS:
                results[index] = (
                    f"more than {MAX_SPECIALISATIONS} distinct specialisations "
                    "were launched; the compile check stops there"
                )
                continue
            self.asked.add(key)
            todo.setdefault(key, []).append(index)
            specs[key] = spec
        if todo:
            compiler = self.start().compiler
            if self.deadline is None:
                self.deadline = time.monotonic() + COMPILE_DEADLINE_S
                if self.run_deadline is not None:
                    self.deadline = min(self.deadline, self.run_deadline)
            keys = list(todo)
            errors = compiler.compile(
                self.source_at, [specs[k] for k in keys], self.deadline
            )
            for key, error in zip(keys, errors, strict=True):
                if error is None or not error.startswith(TRANSIENT):
                    Compiler.cache[(self.sha, key)] = error
                for index in todo[key]:
                    results[index] = error
        return results

    def apply(self, claim: dict) -> None:
        """Set every own launch's compile result in `claim` from the parent's
        compile process: the child's say is discarded; its specialisations only
        name what to compile, and an own kernel launched in a call without one
        fails."""
        for call in claim["calls"]:
            own = [r for r in call["launches"] if r["own"]]
            for record in own:
                record["compiled"], record["compile_error"] = False, None
            said = [r for r in own if r["specialisation"] is not None]
            errors = self.check([r["specialisation"] for r in said])
            for record, error in zip(said, errors, strict=True):
                record["compile_error"] = error
                record["compiled"] = error is None
            named = {claimed_kernel(r["specialisation"]) for r in said}
            for record in own:
                if record["specialisation"] is None and record["kernel"] not in named:
                    record["compile_error"] = (
                        "launched without a record of its specialisation: nothing "
                        "to compile"
                    )
