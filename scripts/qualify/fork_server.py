"""The fork server inside the sandbox (``python -m
scripts.qualify.fork_server``, started by ``sandbox.ForkServer``): it
imports torch and Triton once, and forks one isolated process per job
(``scripts/qualify/worker.py`` runs the candidate in it). It judges nothing.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from scripts.qualify import sandbox, worker


def _start_job(request: dict) -> None:
    """In the forked process: isolate, then run the candidate."""
    if (channel := _fd_channel()) is not None:
        os.close(channel)  # the parent's socket is not the candidate's
    os.setsid()
    sandbox.die_with_parent()
    privileged = bool(request.get("privileged"))
    namespaced = request["sandbox"] == "bubblewrap" or _namespaced(request)
    if namespaced and not sandbox.own_namespaces(privileged):
        os._exit(71)  # the probe said they work: refuse to run without them
    if namespaced:
        read_end, write_end = os.pipe()
        init = os.fork()  # PID 1 of the new namespace: it only waits
        if init == 0:
            sandbox.die_with_parent()
            os.close(read_end)
            # Its own /proc (only this namespace's processes) and a small
            # private /dev/shm; failing that, the job does not start.
            if not sandbox.private_mounts() and privileged:
                os._exit(74)
            job = os.fork()  # the candidate: not PID 1, so signals reach it
            if job == 0:
                os.close(write_end)
                if privileged:  # the host's root: become nobody first
                    sandbox.drop_to_nobody(None)
                sandbox.die_with_parent()
                os._exit(worker.run_job(request))
            _close(request.get("setup_fd"))  # the job's alone
            _, status = os.waitpid(job, 0)
            os.write(write_end, str(os.waitstatus_to_exitcode(status)).encode())
            os._exit(0)  # and every process left in the namespace dies
        os.close(write_end)
        _close(request.get("setup_fd"))
        os.waitpid(init, 0)
        reported = os.read(read_end, 32).decode() or "73"
        code = int(reported) if reported.lstrip("-").isdigit() else 73
        if code < 0:  # end the way the candidate ended, for the parent
            os.kill(os.getpid(), -code)
        os._exit(code)
    sandbox.drop_to_nobody(Path(request["workdir"]))
    sandbox.die_with_parent()  # a change of user clears it: set it again
    os._exit(worker.run_job(request))


def serve() -> None:
    """A fork server: torch and Triton are imported once, here; each request
    (one JSON line on stdin) forks a fresh process for one candidate.
    Replies on stdout: {"pid": ...} when it starts, {"pid": ..., "exit":
    code} when it ends (a negative code is the signal that killed it). A
    line "kill" while a job runs kills it and everything it started.

    Forking this process is safe because it never runs a PyTorch operation:
    a process that has used OpenMP threads hangs its forked children.
    """
    import select
    import signal

    sandbox.die_with_parent()  # the evaluator is gone: so are the server and job
    sandbox.not_dumpable()
    while line := sys.stdin.readline():
        if not line.startswith("{"):
            continue  # a "kill" that came after its job had ended
        request = json.loads(line)
        if request.get("inputs_fd"):  # the parent's sealed memfd follows
            request["inputs_fd"] = _receive_fd()
        setup_read, request["setup_fd"] = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(setup_read)
                _start_job(request)
            finally:
                os._exit(72)
        os.close(request["setup_fd"])
        if request.get("inputs_fd") is not None:
            os.close(request["inputs_fd"])  # the job has its own copy
        print(json.dumps({"pid": pid}), flush=True)
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            ready, _, _ = select.select([sys.stdin], [], [], 0.01)
            if ready and sys.stdin.readline().strip() == "kill":
                _kill_job(pid, request, signal.SIGKILL)
        _kill_job(pid, request, signal.SIGKILL)  # anything it left behind
        reply = {"pid": pid, "exit": os.waitstatus_to_exitcode(status)}
        reply["setup"] = read_setup(setup_read)
        print(json.dumps(reply), flush=True)


def read_setup(fd: int) -> str:
    """What the job's setup reported ("ok", or "error" and a traceback);
    empty when it ended before saying (then it never reached the candidate)."""
    os.set_blocking(fd, False)
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except BlockingIOError:  # a writer still open: a descendant kept it
        pass
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


def _close(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


#: The environment variable naming the fork server's end of the socket that
#: carries file descriptors from the parent (scripts/qualify/sandbox.py).
FD_CHANNEL_ENV = "QUALIFY_FD_CHANNEL"


def _fd_channel() -> int | None:
    value = os.environ.get(FD_CHANNEL_ENV, "")
    return int(value) if value.isdigit() else None


def _receive_fd() -> int:
    """One file descriptor from the parent (SCM_RIGHTS on the channel)."""
    import socket

    channel = _fd_channel()
    if channel is None:
        raise RuntimeError("no file-descriptor channel to the parent")
    with socket.socket(fileno=os.dup(channel)) as sock:
        _, fds, _, _ = socket.recv_fds(sock, 16, 1)
    if len(fds) != 1:
        raise RuntimeError("the parent sent no file descriptor")
    return fds[0]


def _kill_job(pid: int, request: dict, sig) -> None:
    for target in (lambda: os.killpg(pid, sig), lambda: os.kill(pid, sig)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass
    # A job in a PID namespace of its own took everything it started with
    # it. Only a job without one leaves processes to hunt down by user; and
    # killing every process of `nobody` would also kill the candidates of
    # another evaluator running at the same time.
    if request["sandbox"] != "bubblewrap" and not _namespaced(request):
        sandbox.kill_user()


def _namespaced(request: dict) -> bool:
    """Whether this job ran in namespaces of its own (the fallback as root
    does, where the kernel allows it; probed once)."""
    return bool(request.get("privileged")) and sandbox.namespaces_work()


if __name__ == "__main__":
    serve()
