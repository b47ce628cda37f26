"""Where the candidate runs: a bubblewrap sandbox, or a documented fallback
(used by ``scripts/qualify/evaluator.py`` and ``scripts/qualify/worker.py``).

**bubblewrap** (Debian package ``bubblewrap``; ``.ci/run`` installs it), when
``bwrap`` exists and user namespaces work. The worker (a fork server that
imports torch and Triton once) runs inside::

    bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /dev/shm
          --bind JOBS /tmp/qualify --unshare-all --die-with-parent
          --new-session --chdir REPO

so the repository and everything else is read-only, ``/tmp`` and
``/dev/shm`` are private, there is no network, and the only writable place
the parent reads is ``JOBS`` (one directory per candidate, wiped after it).
Each candidate is then forked into a further user and PID namespace of its
own (``unshare(2)``): it is PID 1 there, cannot see the worker or the
evaluator, and every process it starts dies when it ends.

**Fallback**, where bwrap is missing or cannot start (a container without
user namespaces). Weaker, and the verdict says so: the evaluator makes
itself non-dumpable (no ptrace by the same user); the candidate's process
starts a new session, and if the evaluator runs as root it switches to the
unprivileged user ``nobody`` (it cannot write the repository, or signal the
evaluator); at the end every process of that user and the session's group
are killed.

Both: the candidate gets limits on address space (``MEMORY_BYTES_DEFAULT``),
core files (none) and processes. ``QUALIFY_SANDBOX=fallback`` forces the
fallback (tests use it to cover both paths).
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

#: The repository root (the worker runs from there).
REPOSITORY = Path(__file__).resolve().parents[2]
BWRAP = "bwrap"
INSIDE_JOBS = "/tmp/qualify"
NOBODY = 65534
MEMORY_BYTES_DEFAULT = 16 << 30  # address space; torch + Triton map ~1 GiB
MAX_PROCESSES = 256  # threads count too (only enforced for a non-root user)
JOB_PREFIX = "qualify-"
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
PR_SET_DUMPABLE, PR_SET_PDEATHSIG = 4, 1


def bwrap_args(jobs: Path, device: str) -> list[str]:
    """The bubblewrap command line up to the program (see the docstring)."""
    dev = ["--dev-bind", "/dev", "/dev"] if device == "cuda" else ["--dev", "/dev"]
    return [
        BWRAP,
        "--ro-bind",
        "/",
        "/",
        *dev,
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/dev/shm",
        *_rebind_under_tmp(),
        "--bind",
        str(jobs),
        INSIDE_JOBS,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--chdir",
        os.getcwd(),
    ]


def _rebind_under_tmp() -> list[str]:
    """Read-only binds for what the worker needs that the private /tmp and
    /dev/shm would hide: a checkout or a virtual environment under /tmp (a
    CI clone often is) must stay visible inside the sandbox."""
    roots = [Path.cwd(), Path(sys.prefix), Path(sys.base_prefix)]
    roots += [Path(entry) for entry in sys.path if entry]
    private = (Path("/tmp"), Path("/dev/shm"))
    hidden = sorted(
        {
            path.resolve()
            for path in roots
            if path.exists()
            and any(path.resolve().is_relative_to(top) for top in private)
        },
        key=lambda p: len(p.parts),
    )
    kept: list[Path] = []
    for path in hidden:  # a folder's bind covers everything inside it
        if path not in private and not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return [arg for path in kept for arg in ("--ro-bind", str(path), str(path))]


@functools.cache
def bwrap_works() -> bool:
    """True when bwrap exists and can start a sandbox here (probed once)."""
    if os.environ.get("QUALIFY_SANDBOX") == "fallback" or not shutil.which(BWRAP):
        return False
    with tempfile.TemporaryDirectory() as probe:
        try:
            done = subprocess.run(
                [*bwrap_args(Path(probe), "cpu"), "true"],
                capture_output=True,
                timeout=20,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 0


def isolation(device: str) -> dict:
    """What the verdict states about the isolation in force."""
    if bwrap_works():
        return {
            "method": "bubblewrap",
            "details": [
                "repository and system read-only",
                "private /tmp and /dev/shm",
                "no network",
                "own user and PID namespace per candidate",
                "dies with the evaluator",
                "address-space and core-file limits",
            ],
        }
    root = os.geteuid() == 0
    return {
        "method": "fallback",
        "details": [
            "no bubblewrap: the repository is protected only by file permissions",
            "candidate runs as user nobody" if root else "candidate runs as this user",
            "evaluator not dumpable (no ptrace)",
            "new session; its process group and user killed at the end"
            if root
            else "new session; its process group killed at the end",
            "address-space, core-file and process limits",
        ],
    }


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def not_dumpable() -> None:
    """The evaluator cannot be ptraced or read through /proc by the child."""
    try:
        _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - Linux has it
        pass


def die_with_parent() -> None:
    """SIGKILL this process when its parent dies."""
    try:
        _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover
        pass


def own_namespaces() -> bool:
    """Move the next forked process into a new user and PID namespace (it
    becomes PID 1 there; its descendants die with it). True on success."""
    libc = _libc()
    uid, gid = os.geteuid(), os.getegid()  # unmapped once unshared: read first
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0:
        return False
    # Map root to the sandbox's root so the job directory stays writable.
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    except OSError:
        return False
    return True


def limit_resources(memory_bytes: int | None, processes: int = MAX_PROCESSES):
    """Limits for the candidate's process (inherited by what it starts)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


def drop_to_nobody(workdir: Path) -> bool:
    """Fallback: run as `nobody` if this process is root. True if dropped."""
    if os.geteuid() != 0:
        return False
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)
    os.chdir(workdir)
    return True


def kill_user(uid: int = NOBODY) -> None:
    """Fallback: SIGKILL every process of `uid` (a helper that becomes that
    user and signals -1), so a double-forked grandchild does not survive."""
    if os.geteuid() != 0:
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        os._exit(0)
    os.waitpid(pid, 0)


# --------------------------------------------------------------------------
# The jobs directory (in /dev/shm when there is one), and its cleanup
# --------------------------------------------------------------------------


def temp_root() -> Path:
    shm = Path("/dev/shm")
    return (
        shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())
    )


def make_jobs_dir() -> Path:
    """A directory for this evaluator's jobs, named after its PID, after
    removing those of evaluators that are gone (killed before cleaning up)."""
    remove_stale(temp_root())
    path = Path(tempfile.mkdtemp(prefix=f"{JOB_PREFIX}{os.getpid()}-", dir=temp_root()))
    path.chmod(0o711)  # nobody (fallback) may enter its own job directory
    return path


def remove_stale(root: Path) -> list[Path]:
    removed = []
    for path in root.glob(f"{JOB_PREFIX}*-*"):
        pid = path.name.removeprefix(JOB_PREFIX).split("-")[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --------------------------------------------------------------------------
# The sandbox client: one fork server per device
# --------------------------------------------------------------------------


class ForkServer:
    """One long-lived `python -m scripts.qualify.worker` process per device,
    inside the sandbox: it imports torch and Triton once and forks a fresh,
    further isolated process per candidate, so a candidate costs a fraction
    of a second to start instead of the seconds an `import torch` takes.
    Triton decides at import time whether its own library functions are
    interpreted, so the server starts with TRITON_INTERPRET set."""

    _instances: dict[str, ForkServer] = {}

    def __init__(self, device: str):
        self.device = device
        self.method = "bubblewrap" if bwrap_works() else "fallback"
        self.jobs = make_jobs_dir()
        env = dict(os.environ, TRITON_INTERPRET="1" if device == "cpu" else "0")
        command = [sys.executable, "-m", "scripts.qualify.worker"]
        if self.method == "bubblewrap":
            command = bwrap_args(self.jobs, device) + command
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPOSITORY,
            env=env,
            start_new_session=True,
        )
        atexit.register(self.close)

    @classmethod
    def get(cls, device: str) -> ForkServer:
        server = cls._instances.get(device)
        if server is None or server.process.poll() is not None:
            if server is not None:
                server.close()
            server = cls._instances[device] = ForkServer(device)
        return server

    def inside(self, path: Path) -> str:
        """`path` (under the jobs directory) as the sandbox sees it."""
        if self.method != "bubblewrap":
            return str(path)
        return str(Path(INSIDE_JOBS) / path.relative_to(self.jobs))

    def new_job(self) -> Path:
        work = self.jobs / f"job-{os.urandom(6).hex()}"
        work.mkdir(mode=0o700)
        return work

    def start(self, work: Path, device: str, memory: int | None) -> int:
        if self.method == "fallback" and os.geteuid() == 0:
            os.chown(work, NOBODY, NOBODY)
        request = {
            "candidate": self.inside(work / "candidate.py"),
            "workdir": self.inside(work),
            "device": device,
            "memory": memory,
            "sandbox": self.method,
        }
        reply = self._send(json.dumps(request))
        return reply["pid"]

    def _send(self, line: str) -> dict:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise SandboxGone("the sandbox stopped answering") from exc
        reply = self.process.stdout.readline()
        if not reply:
            raise SandboxGone("the sandbox ended")
        return json.loads(reply)

    def kill_job(self) -> None:
        try:
            self.process.stdin.write("kill\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def exit_code(self, timeout: float = 0.0) -> int | None:
        """The job's exit code once it has ended, else None."""
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return None
        reply = self.process.stdout.readline()
        if not reply:
            raise SandboxGone("the sandbox ended")
        return json.loads(reply)["exit"]

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(5)
            except (subprocess.TimeoutExpired, OSError):
                self.process.kill()
        shutil.rmtree(self.jobs, ignore_errors=True)


class SandboxGone(Exception):
    """The fork server died: the candidate's run ends as a crash."""
