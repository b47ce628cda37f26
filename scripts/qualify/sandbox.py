"""Where the candidate runs: a bubblewrap sandbox, or a documented fallback
(used by ``scripts/qualify/evaluator.py`` and ``scripts/qualify/worker.py``),
and the client of the fork server that runs inside it (``ForkServer``).

**bubblewrap** (Debian package ``bubblewrap``; ``.ci/run`` installs it), when
``bwrap`` exists and can start. The worker (a fork server that imports torch
and Triton once) runs inside::

    bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /dev/shm
          --bind JOBS /tmp/qualify --unshare-... --die-with-parent
          --new-session --chdir REPO

so the repository and everything else is read-only, there is no network,
and the only writable place the parent reads is ``JOBS``. As the host's
root, bwrap gets no user namespace (its own would map the sandbox's root to
the host's root) and keeps only the capabilities the worker needs to set up
each candidate; otherwise ``--unshare-all``. With ``--device cuda`` only the
``/dev/nvidia*`` nodes are bound.

Each candidate is forked into a PID and mount namespace of its own (and, when
not root, a user namespace mapping its root to this unprivileged user): it
is not PID 1, sees only its own processes in a ``/proc`` mounted for it,
gets a private ``/dev/shm`` with size and inode limits, and every process it
starts dies when it ends. As root it runs as ``nobody``. The jobs directory
is, as root, a tmpfs of its own (nosuid, nodev, a size and an inode limit),
unmounted and removed when the server closes, or by the next evaluator if
this one was killed.

**Fallback**, where bwrap is missing or cannot start. The same file rules
(as root: the same namespaces, ``nobody``, the same jobs tmpfs), but no
network cut and a repository protected only by file permissions; the
evaluator makes itself non-dumpable, the candidate starts a new session, and
at the end every process of ``nobody`` and the session's group is killed.
The verdict says which path ran.

Both: limits on address space (``MEMORY_BYTES_DEFAULT``, or a lower one
already in force), core files (none) and processes. ``QUALIFY_SANDBOX=
fallback`` forces the fallback (tests use it to cover both paths).
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
import socket
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
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNS = 0x10000000, 0x20000000, 0x00020000
PR_SET_DUMPABLE, PR_SET_PDEATHSIG = 4, 1


def gpu_device_nodes() -> list[str]:
    """The device nodes a CUDA process needs (/dev/nvidia*), and no others."""
    nodes = sorted(str(p) for p in Path("/dev").glob("nvidia*"))
    caps = Path("/dev/nvidia-caps")
    if caps.is_dir():
        nodes += sorted(str(p) for p in caps.iterdir())
    return nodes


def bwrap_args(jobs: Path, device: str) -> list[str]:
    """The bubblewrap command line up to the program (see the docstring)."""
    dev = ["--dev", "/dev"]
    if device == "cuda":
        for node in gpu_device_nodes():
            dev += ["--dev-bind", node, node]
    if os.geteuid() == 0:
        # As the host's root, bwrap's own user namespace would map the
        # sandbox's root to the host's. No user namespace then: the worker
        # keeps the capabilities it needs to mount its namespaces and to
        # become nobody before the candidate runs.
        unshare = ["--unshare-ipc", "--unshare-pid", "--unshare-net"]
        unshare += ["--unshare-uts", "--unshare-cgroup-try"]
        for cap in ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_KILL"):
            unshare += ["--cap-add", cap]
    else:
        unshare = ["--unshare-all"]
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
        *unshare,
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
    args: list[str] = []
    made: set[Path] = set()
    for path in kept:
        args += _traversable_parents(path, private, made)
        args += ["--ro-bind", str(path), str(path)]
    return args


def _traversable_parents(path: Path, private, made: set[Path]) -> list[str]:
    """The folders between a private /tmp (or /dev/shm) and `path`, made
    0755 inside: bubblewrap makes them 0700, and the candidate (nobody, as
    root) could reach nothing below, not even what torch imports lazily (a
    checkout in `mktemp -d` failed every candidate so). Empty tmpfs folders:
    nothing of the host's shows through them."""
    top = next(p for p in private if path.is_relative_to(p))
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent.is_relative_to(top) and parent != top and parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def unreadable_for_candidate() -> str | None:
    """In the candidate's process, before it runs: None when this user can
    read the repository and the packages torch and Triton import lazily;
    otherwise which folder stops it. (As root the candidate runs as nobody,
    who cannot enter a folder of mode 0700 such as the one `mktemp -d`
    makes; every candidate would then fail for a reason not its own.)"""
    import torch
    import triton

    needed = [REPOSITORY, Path(torch.__file__).parent, Path(triton.__file__).parent]
    for path in needed:
        for folder in [*reversed(path.parents), path]:
            if not os.access(folder, os.R_OK | os.X_OK):
                return (
                    f"the candidate's user (uid {os.getuid()}) cannot read "
                    f"{folder}, so it cannot import from {path}: make the "
                    "folder readable (chmod o+rx), or run the evaluator from "
                    "a checkout and environment that user can read"
                )
    return None


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


def inputs_detail(device: str) -> str:
    """How the inputs reach the candidate (scripts/qualify/shared_inputs.py)."""
    if device == "cpu":
        return "inputs in the parent's sealed memory, mapped read-only"
    return "inputs copied to the GPU from the parent's sealed memory"


def isolation(device: str) -> dict:
    """What the verdict states about the isolation in force."""
    root = os.geteuid() == 0
    jobs = (
        "jobs directory: a tmpfs of its own, nosuid, nodev, size and inode limits"
        if root
        else "jobs directory: a plain directory (not root: no mount of its own)"
    )
    if bwrap_works():
        return {
            "method": "bubblewrap",
            "details": [
                "repository and system read-only",
                "private /tmp; a private /dev/shm with size and inode limits",
                "no network",
                "candidate runs as user nobody"
                if root
                else "own user namespace: its root is this unprivileged user",
                "own PID and mount namespace per candidate: its /proc lists "
                "only its own processes",
                jobs,
                "only the GPU device nodes with --device cuda",
                "dies with the evaluator",
                "address-space and core-file limits",
                inputs_detail(device),
            ],
        }
    return {
        "method": "fallback",
        "details": [
            "no bubblewrap: the repository is protected only by file permissions",
            "candidate runs as user nobody" if root else "candidate runs as this user",
            "own PID and mount namespace (own /proc, private /dev/shm)"
            if root
            else "no namespaces: it sees the host's /proc",
            jobs,
            "evaluator not dumpable (no ptrace)",
            "new session; its process group and user killed at the end"
            if root
            else "new session; its process group killed at the end",
            "network not cut off",
            "address-space, core-file and process limits",
            inputs_detail(device),
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


def own_namespaces(privileged: bool = False) -> bool:
    """Move the next forked process into a new PID and mount namespace (it
    becomes PID 1 there; its descendants die with it), and, unless this is
    the host's root (which becomes nobody instead), a user namespace that
    maps its root to this unprivileged user. True on success."""
    libc = _libc()
    uid, gid = os.geteuid(), os.getegid()  # unmapped once unshared: read first
    flags = CLONE_NEWPID | CLONE_NEWNS | (0 if privileged else CLONE_NEWUSER)
    if libc.unshare(flags) != 0:
        return False
    if privileged:
        return True
    # Map root to the sandbox's root so the job directory stays writable.
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    except OSError:
        return False
    return True


@functools.cache
def namespaces_work() -> bool:
    """True when a forked child can enter a PID and mount namespace of its
    own as the host's root (the fallback then uses them; probed once)."""
    if os.geteuid() != 0:
        return False
    pid = os.fork()
    if pid == 0:
        os._exit(0 if own_namespaces(privileged=True) else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
MNT_DETACH = 2
#: The candidate's own scratch space (/dev/shm inside the sandbox).
SCRATCH_OPTIONS = b"size=64m,nr_inodes=1024,mode=1777"
#: The jobs directory's limits when this process can mount one (as root).
JOBS_OPTIONS = "size={size},nr_inodes=4096,mode=0711"
JOBS_BYTES = {"cpu": 4 << 30, "cuda": 48 << 30}


def _mount(source: bytes, target: bytes, kind: bytes | None, flags: int, data):
    return _libc().mount(source, target, kind, flags, data) == 0


def private_mounts() -> bool:
    """In PID 1 of a new PID and mount namespace: a /proc that lists only
    this namespace, and a private /dev/shm with size and inode limits, both
    nosuid and nodev. True when both are in place."""
    if not _mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None):
        return False
    proc = _mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    shm = _mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, SCRATCH_OPTIONS)
    return proc and shm


def limit_resources(memory_bytes: int | None, processes: int = MAX_PROCESSES):
    """Limits for the candidate's process (inherited by what it starts)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_bytes:
        memory_bytes = clamped(resource.RLIMIT_AS, memory_bytes)
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    processes = clamped(resource.RLIMIT_NPROC, processes)
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


def clamped(which: int, wanted: int) -> int:
    """`wanted`, or the hard limit already in force if that is lower (a
    shell's `ulimit -v` can only be lowered, and setrlimit above it fails)."""
    _, hard = resource.getrlimit(which)
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def drop_to_nobody(workdir: Path | None) -> bool:
    """Run as `nobody` if this process is root (then in `workdir`, if one is
    given). True if dropped."""
    if os.geteuid() != 0:
        return False
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)
    if workdir is not None:
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
# The jobs directory, and its cleanup
# --------------------------------------------------------------------------


def temp_root() -> Path:
    """Where jobs directories go: the system's temporary folder (not
    /dev/shm, which each candidate gets a private one of)."""
    return Path(tempfile.gettempdir())


def make_jobs_dir(device: str = "cpu") -> Path:
    """A directory for this evaluator's jobs, named after its PID, after
    removing those of evaluators that are gone (killed before cleaning up).
    As root it is a tmpfs of its own, nosuid and nodev, with a size and an
    inode limit; otherwise a plain directory (the candidate then runs as
    this unprivileged user, and the isolation details say so)."""
    remove_stale(temp_root())
    path = Path(tempfile.mkdtemp(prefix=f"{JOB_PREFIX}{os.getpid()}-", dir=temp_root()))
    if os.geteuid() == 0:
        options = JOBS_OPTIONS.format(size=JOBS_BYTES.get(device, JOBS_BYTES["cpu"]))
        flags = MS_NOSUID | MS_NODEV
        _mount(b"tmpfs", str(path).encode(), b"tmpfs", flags, options.encode())
    path.chmod(0o711)  # nobody may enter its own job directory
    return path


def jobs_dir_limited(path: Path) -> bool:
    """True when `path` is a tmpfs mounted nosuid and nodev (see above)."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return False
    for line in mounts:
        fields = line.split()
        if len(fields) > 3 and fields[1] == str(path) and fields[2] == "tmpfs":
            options = fields[3].split(",")
            return "nosuid" in options and "nodev" in options
    return False


def remove_jobs_dir(path: Path) -> None:
    """Unmount (if it is a mount) and delete a jobs directory."""
    if os.geteuid() == 0:
        _libc().umount2(str(path).encode(), MNT_DETACH)
    shutil.rmtree(path, ignore_errors=True)


def remove_stale(root: Path) -> list[Path]:
    removed = []
    for path in root.glob(f"{JOB_PREFIX}*-*"):
        pid = path.name.removeprefix(JOB_PREFIX).split("-")[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        remove_jobs_dir(path)
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
    """One long-lived `python -m scripts.qualify.fork_server` per device,
    inside the sandbox: it imports torch and Triton once and forks a fresh,
    further isolated process per candidate, so a candidate costs a fraction
    of a second to start instead of the seconds an `import torch` takes.
    Triton decides at import time whether its own library functions are
    interpreted, so the server starts with TRITON_INTERPRET set."""

    _instances: dict[str, ForkServer] = {}

    def __init__(self, device: str):
        self.device = device
        self.method = "bubblewrap" if bwrap_works() else "fallback"
        self.setup = ""  # what the last job's setup reported (worker.py)
        self.jobs = make_jobs_dir(device)
        env = dict(os.environ, TRITON_INTERPRET="1" if device == "cpu" else "0")
        # Candidates read the bytecode the project compiled but never write
        # any: a written .pyc would run in every later process.
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        # A socket that carries each job's sealed inputs (a memfd) to the
        # server by SCM_RIGHTS (scripts/qualify/shared_inputs.py).
        self.channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env["QUALIFY_FD_CHANNEL"] = str(theirs.fileno())
        command = [sys.executable, "-m", "scripts.qualify.fork_server"]
        if self.method == "bubblewrap":
            command = bwrap_args(self.jobs, device) + command
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=REPOSITORY,
                env=env,
                start_new_session=True,
                pass_fds=(theirs.fileno(),),
            )
        finally:
            theirs.close()
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

    def start(
        self, work: Path, device: str, memory: int | None, inputs_fd: int | None = None
    ) -> int:
        """Start a job; `inputs_fd` (a sealed memfd, scripts/qualify/
        shared_inputs.py) is handed to it and stays the caller's to close."""
        if os.geteuid() == 0:  # the candidate runs as nobody, on both paths
            os.chown(work, NOBODY, NOBODY)
        request = {
            "candidate": self.inside(work / "candidate.py"),
            "workdir": self.inside(work),
            "device": device,
            "memory": memory,
            "sandbox": self.method,
            "privileged": os.geteuid() == 0,
            "inputs_fd": inputs_fd is not None,
        }
        if inputs_fd is not None:
            try:
                socket.send_fds(self.channel, [b"f"], [inputs_fd])
            except OSError as exc:
                raise SandboxGone("the sandbox stopped answering") from exc
        self.setup = ""
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
        ended = json.loads(reply)
        self.setup = ended.get("setup", "")
        return ended["exit"]

    def setup_fault(self, exit_code: int) -> str | None:
        """None when the job that ended had set itself up and imported the
        candidate; otherwise the evaluator's own fault, in full. The setup
        reports through a pipe the candidate never holds (worker.py), so a
        candidate cannot claim one."""
        if self.setup == "ok":
            return None
        if self.setup.startswith("error\n"):
            trace = self.setup.removeprefix("error\n")
            return (
                "the evaluator's worker failed before the candidate ran (its "
                f"own fault, not the candidate's):\n{trace}"
            )
        return (
            f"the evaluator's worker ended with code {exit_code} before the "
            "candidate ran (its own fault, not the candidate's)"
        )

    def close(self) -> None:
        self.channel.close()
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(5)
            except (subprocess.TimeoutExpired, OSError):
                self.process.kill()
        remove_jobs_dir(self.jobs)


class SandboxGone(Exception):
    """The fork server died: the candidate's run ends as a crash."""
