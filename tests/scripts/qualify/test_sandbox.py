"""Where the candidate runs (scripts/qualify/sandbox.py): the bubblewrap
command line, the fallback forced with QUALIFY_SANDBOX=fallback, the limits
and the cleanup of work directories an evaluator left behind. The hostile
candidate's live run is here too: it tries to write into the repository,
to leave a process behind and to reach the network."""

import json
import os
import resource
import textwrap

import pytest

import evidence
from evidence import sha256_bytes
from scripts.qualify import evaluator, refresh, sandbox

ROOT = evidence.ROOT
HOSTILE = f"{refresh.CANDIDATES}/hostile/escape_attempts.py"


def test_bubblewrap_command_makes_everything_read_only_but_the_jobs(tmp_path):
    args = sandbox.bwrap_args(tmp_path, "cpu")
    joined = " ".join(args)
    assert args[0] == "bwrap" and "--ro-bind / /" in joined
    assert "--tmpfs /tmp" in joined and "--tmpfs /dev/shm" in joined
    assert f"--bind {tmp_path} {sandbox.INSIDE_JOBS}" in joined
    for flag in ("--die-with-parent", "--new-session"):
        assert flag in args
    if os.geteuid() == 0:  # no user namespace that maps to the host's root
        assert "--unshare-all" not in args and "--unshare-user" not in args
        assert {"--unshare-pid", "--unshare-net", "--unshare-ipc"} <= set(args)
    else:
        assert "--unshare-all" in args
    assert "--dev-bind" not in args  # only a GPU run sees device nodes


def test_a_gpu_run_sees_only_the_gpu_device_nodes(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "gpu_device_nodes", lambda: ["/dev/nvidia0"])
    joined = " ".join(sandbox.bwrap_args(tmp_path, "cuda"))
    assert "--dev-bind /dev/nvidia0 /dev/nvidia0" in joined
    assert "--dev-bind /dev /dev" not in joined and "--dev /dev" in joined


def test_a_checkout_under_tmp_stays_visible_inside(tmp_path, monkeypatch):
    # A CI clone under /tmp would vanish behind the private /tmp.
    checkout = (tmp_path / "clone").resolve()
    (checkout / "sub").mkdir(parents=True)
    monkeypatch.chdir(checkout / "sub")
    monkeypatch.setattr(sandbox.sys, "path", [str(checkout), str(checkout / "sub")])
    joined = " ".join(sandbox.bwrap_args(tmp_path / "jobs", "cpu"))
    assert f"--ro-bind {checkout} {checkout}" in joined
    assert f"--ro-bind {checkout / 'sub'}" not in joined  # covered by the parent
    assert joined.index("--tmpfs /tmp") < joined.index(f"--ro-bind {checkout}")
    # Each folder between /tmp and the checkout is made traversable first.
    made = f"--perms 0755 --dir {checkout.parent}"
    assert made in joined and joined.index(made) < joined.index(f"--ro-bind {checkout}")


@pytest.mark.skipif(not sandbox.bwrap_works(), reason="needs bubblewrap")
def test_inside_the_sandbox_every_folder_above_a_nested_checkout_can_be_entered(
    tmp_path, monkeypatch
):
    # bubblewrap makes missing mount points 0700: a checkout two folders
    # under /tmp (mktemp -d, pytest's tmp_path) was out of nobody's reach,
    # and every candidate failed while torch imported a module lazily.
    top = tmp_path / "private"
    checkout = (top / "clone").resolve()
    checkout.mkdir(parents=True)
    top.chmod(0o700)
    monkeypatch.chdir(checkout)
    monkeypatch.setattr(sandbox.sys, "path", [str(checkout)])
    folders = [p for p in checkout.parents if p.is_relative_to("/tmp")][:-1]
    args = sandbox.bwrap_args(tmp_path / "jobs", "cpu")
    (tmp_path / "jobs").mkdir()
    done = sandbox.subprocess.run(
        [*args, "stat", "-c", "%a", *map(str, folders)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) == {"755"}


@pytest.mark.skipif(os.geteuid() != 0, reason="the candidate is nobody only as root")
def test_a_folder_nobody_cannot_enter_is_named_before_any_candidate_runs(
    tmp_path, monkeypatch
):
    hidden = tmp_path / "private"
    (hidden / "clone").mkdir(parents=True)
    hidden.chmod(0o700)
    monkeypatch.setattr(sandbox, "REPOSITORY", hidden / "clone")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # as the candidate's user
        os.close(read)
        sandbox.drop_to_nobody(None)
        os.write(write, (sandbox.unreadable_for_candidate() or "").encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as said:
        problem = said.read()
    # (pytest's own folder is 0700 too: the first folder that stops it)
    assert f"cannot import from {hidden / 'clone'}:" in problem
    assert "chmod o+rx" in problem
    assert sandbox.unreadable_for_candidate() is None  # root reads it


def test_forcing_the_fallback_is_stated_in_the_isolation(monkeypatch):
    monkeypatch.setenv("QUALIFY_SANDBOX", "fallback")
    sandbox.bwrap_works.cache_clear()
    try:
        stated = sandbox.isolation("cpu")
    finally:
        monkeypatch.undo()
        sandbox.bwrap_works.cache_clear()
    assert stated["method"] == "fallback"
    assert any("no bubblewrap" in line for line in stated["details"])
    # The fallback hands the inputs over as bubblewrap does: read-only.
    assert sandbox.inputs_detail("cpu") in stated["details"]


def test_stale_job_directories_of_dead_evaluators_are_removed(tmp_path):
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    gone = tmp_path / f"{sandbox.JOB_PREFIX}{dead}-abc"
    mine = tmp_path / f"{sandbox.JOB_PREFIX}{os.getpid()}-abc"
    other = tmp_path / "unrelated"
    for path in (gone, mine, other):
        path.mkdir()
    assert sandbox.remove_stale(tmp_path) == [gone]
    assert mine.is_dir() and other.is_dir() and not gone.exists()


def test_limits_apply_to_the_process_that_sets_them():
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # a child, so this process keeps its own limits
        sandbox.limit_resources(2 << 30, processes=64)
        found = (
            resource.getrlimit(resource.RLIMIT_AS)[0] == 2 << 30
            and resource.getrlimit(resource.RLIMIT_CORE) == (0, 0)
            and resource.getrlimit(resource.RLIMIT_NPROC)[0] == 64
        )
        os.write(write_end, b"1" if found else b"0")
        os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    assert os.read(read_end, 1) == b"1"


def test_hostile_candidate_changes_nothing_outside_the_sandbox():
    planted = [
        ROOT / "results/bench/escaped.json",
        ROOT / "results/qualify/escaped.txt",
        ROOT / "results/qualify/escaped-later.txt",
    ]
    assert not any(p.exists() for p in planted)
    verdict = refresh.qualify_for_corpus(HOSTILE)
    assert not any(p.exists() for p in planted)
    entry = refresh.corpus_entry(HOSTILE, verdict)
    committed = {
        e["path"]: e
        for e in evidence.read("verdict", refresh.result_path("corpus")).data[
            "candidates"
        ]
    }[HOSTILE]
    for key in ("sha256", "status", "first_failure", "failed_checks"):
        assert entry[key] == committed[key], key
    assert verdict["isolation"]["method"] == (
        "bubblewrap" if sandbox.bwrap_works() else "fallback"
    )
    flagged = {item["construct"] for item in verdict["review"]}
    assert {"import os", "import socket"} <= flagged


def test_fallback_runs_the_candidate_as_nobody_when_root(tmp_path, monkeypatch):
    """The fallback path, forced: a fresh fork server outside bubblewrap.
    As root the candidate runs as `nobody` and cannot write a root-owned
    folder; the candidate then fails fast (it launches no kernel)."""
    target = tmp_path / "protected"
    target.mkdir(mode=0o755)
    candidate = tmp_path / "writes.py"
    candidate.write_text(
        textwrap.dedent(
            f"""
            def residual_add_relu(x, residual):
                try:
                    open({str(target / "mark")!r}, "w").close()
                except OSError:
                    pass
                return (x + residual).relu()
            """
        )
    )
    monkeypatch.setenv("QUALIFY_SANDBOX", "fallback")
    monkeypatch.setattr(sandbox.ForkServer, "_instances", {})
    sandbox.bwrap_works.cache_clear()
    try:
        sha = sha256_bytes(candidate.read_bytes())
        verdict = evaluator.qualify(
            candidate, timeout_s=refresh.CORPUS_TIMEOUT_S, reviewed=sha
        )
    finally:
        for server in sandbox.ForkServer._instances.values():
            server.close()
        monkeypatch.undo()
        sandbox.bwrap_works.cache_clear()
    assert verdict["isolation"]["method"] == "fallback"
    # the first case it ran (the order is shuffled): a kernel case or an
    # unsupported input, both of which it gets wrong
    assert verdict["first_failure"]["check"] in ("launches-kernel", "error-type")
    if os.geteuid() == 0:
        assert "candidate runs as user nobody" in verdict["isolation"]["details"]
        assert not (target / "mark").exists()
    else:
        pytest.skip("not root: the fallback runs the candidate as this user")


def test_as_root_a_candidate_gets_nothing_the_host_can_use(tmp_path):
    """The must-show of issue 36, live: a set-user-ID file it makes is
    nobody's on a nosuid mount, a host-only file stays unread, its /proc
    holds only its own processes, and its scratch space has a size limit."""
    if os.geteuid() != 0:
        pytest.skip("the uid mapping checked here is the root path")
    secret = tmp_path / "host-only"
    secret.write_text("host secret 67890")
    secret.chmod(0o600)
    candidate = tmp_path / "probe.py"
    candidate.write_text(
        textwrap.dedent(
            f"""
            import os

            def residual_add_relu(x, residual):
                made = os.path.join(os.path.dirname(__file__), "suid")
                open(made, "w").close()
                os.chmod(made, 0o4755)
                try:
                    secret = open({str(secret)!r}).read()
                except OSError:
                    secret = "unread"
                try:
                    with open("/dev/shm/fill", "wb") as f:
                        f.write(bytes(100 << 20))
                    filled = "fits"
                except OSError:
                    filled = "full"
                procs = [p for p in os.listdir("/proc") if p.isdigit()]
                raise TypeError(
                    f"uid={{os.stat(made).st_uid}} secret={{secret}} "
                    f"shm={{filled}} procs={{len(procs)}} cwd={{os.getcwd()}}"
                )
            """
        )
    )
    before = set(os.listdir("/dev/shm"))
    verdict = evaluator.qualify(
        candidate,
        timeout_s=refresh.CORPUS_TIMEOUT_S,
        reviewed=sha256_bytes(candidate.read_bytes()),
    )
    detail = verdict["first_failure"]["detail"]
    assert "uid=65534" in detail and "secret=unread" in detail, detail
    assert "shm=full" in detail and "procs=2" in detail, detail
    assert set(os.listdir("/dev/shm")) - before == set()
    assert any("nosuid, nodev" in d for d in verdict["isolation"]["details"])
    assert "67890" not in json.dumps(verdict)
