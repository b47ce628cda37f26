"""The GPU run's orchestration, with fake steps: order, time limits, the
budget passed forward, SIGINT before SIGKILL, the commit forwarded, and what
comes back (two files, rewritten after every step); arguments refused in one
line. The real dry run of every tool runs in `make device-run-dry` (CI)."""

import json
import os
import sys
import tarfile

import pytest

from scripts.device_run import __main__ as device_run
from scripts.device_run.steps import STEPS, Step


def fake(name, code, limit_s=30, needs_module="", required=True):
    command = ("{py}", "-c", code)
    return Step(
        name, name, command, command, limit_s, required=required,
        needs_module=needs_module,
    )  # fmt: skip


@pytest.fixture
def steps(monkeypatch):
    def use(*chosen):
        monkeypatch.setattr(device_run, "STEPS", chosen)

    return use


def run(tmp_path, *extra):
    out, work = tmp_path / "out", tmp_path / "work"
    rc = device_run.main(["--out", str(out), "--work", str(work), "--dry-run", *extra])
    return rc, json.loads((out / "summary.json").read_text())


def archive_members(tmp_path) -> dict[str, bytes]:
    with tarfile.open(tmp_path / "out" / device_run.ARCHIVE) as tar:
        return {
            m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()
        }


def test_steps_run_in_order_and_are_recorded(tmp_path, steps):
    steps(
        fake("first", "print('one')"),
        fake("second", "import sys; sys.exit(3)"),
        fake("later", "pass", needs_module="scripts/no_such_tool/__main__.py"),
    )
    rc, summary = run(tmp_path)
    assert rc == device_run.EXIT_FAILED
    assert list(summary["steps"]) == ["first", "second", "later"]
    assert summary["steps"]["first"]["status"] == "passed"
    assert summary["steps"]["second"] == {**summary["steps"]["second"], "returncode": 3}
    assert summary["steps"]["later"]["status"] == "absent"
    log = tmp_path / "work" / summary["steps"]["first"]["log"]
    assert log.read_text().strip() == "one"


def test_only_two_files_come_back_and_they_hold_everything(tmp_path, steps):
    writes = (
        "import pathlib, sys; w = pathlib.Path(sys.argv[1]); "
        "(w / 'bench' / 'r.json').write_text('[]'); print('x' * 400000)"
    )
    steps(
        Step(
            "writes",
            "w",
            ("{py}", "-c", writes, "{work}"),
            ("{py}", "-c", writes, "{work}"),
            30,
        )
    )
    rc, summary = run(tmp_path)
    assert rc == device_run.EXIT_OK
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == [device_run.ARCHIVE, "summary.json"]
    assert all(p.stat().st_size < 16 * 2**20 for p in out.iterdir())
    members = archive_members(tmp_path)
    assert "device-run/bench/r.json" in members
    assert "device-run/summary.json" in members
    log = members["device-run/logs/writes.log"]  # cut to its tail, said so
    assert (
        log.startswith(b"[... cut ...]") and len(log) <= device_run.LOG_TAIL_BYTES + 64
    )
    assert "bench/r.json" in summary["files"]


def test_the_archive_is_packed_after_every_step(tmp_path, steps):
    # While the second step runs, what the first wrote has already come back:
    # a lease that ends mid-run returns every finished step.
    marker = (
        "import pathlib, sys; "
        "(pathlib.Path(sys.argv[1]) / 'bench' / 'one.json').write_text('1')"
    )
    archive = str(tmp_path / "out" / device_run.ARCHIVE)
    looks = (
        "import sys, tarfile; names = tarfile.open(sys.argv[1]).getnames(); "
        "sys.exit(0 if 'device-run/bench/one.json' in names else 1)"
    )
    first = ("{py}", "-c", marker, "{work}")
    second = ("{py}", "-c", looks, archive)
    steps(Step("first", "f", first, first, 30), Step("second", "s", second, second, 30))
    rc, summary = run(tmp_path)
    assert summary["steps"]["second"]["status"] == "passed"
    assert rc == device_run.EXIT_OK


def test_an_overrunning_step_gets_sigint_first_and_keeps_its_file(
    tmp_path, steps, monkeypatch
):
    monkeypatch.setattr(device_run, "GRACE_S", 1)
    finishes_on_sigint = (
        "import pathlib, signal, sys, time\n"
        "work = pathlib.Path(sys.argv[1])\n"
        "def done(*_):\n"
        "    (work / 'bench' / 'r.json').write_text('interrupted')\n"
        "    sys.exit(130)\n"
        "signal.signal(signal.SIGINT, done)\n"
        "time.sleep(60)\n"
    )
    command = ("{py}", "-c", finishes_on_sigint, "{work}")
    steps(Step("slow", "s", command, command, 1), fake("next", "pass"))
    rc, summary = run(tmp_path)
    assert summary["steps"]["slow"]["status"] == "overran"
    assert summary["steps"]["slow"]["returncode"] == 130
    assert summary["steps"]["next"]["status"] == "passed"
    assert archive_members(tmp_path)["device-run/bench/r.json"] == b"interrupted"
    assert rc == device_run.EXIT_FAILED


def test_a_step_that_ignores_sigint_is_killed_with_its_children(
    tmp_path, steps, monkeypatch
):
    monkeypatch.setattr(device_run, "GRACE_S", 1)
    sleeper = (
        "import signal, subprocess, sys, time; "
        "signal.signal(signal.SIGINT, signal.SIG_IGN); "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "time.sleep(60)"
    )
    steps(fake("slow", sleeper, limit_s=1), fake("next", "pass"))
    rc, summary = run(tmp_path)
    assert summary["steps"]["slow"]["status"] == "overran"
    assert summary["steps"]["next"]["status"] == "passed"
    assert rc == device_run.EXIT_FAILED


def test_unused_time_passes_forward_but_never_eats_a_required_limit():
    bench = Step("bench", "b", ("x",), ("x",), 100)
    later = [Step("compare", "c", ("x",), ("x",), 40)]
    optional = [Step("opt", "o", ("x",), ("x",), 40, required=False)]
    assert device_run.limit_for(bench, 140, later) == 100
    assert device_run.limit_for(bench, 200, later) == 160  # 60 s left by others
    assert device_run.limit_for(bench, 900, later) == 200  # at most twice its own
    assert device_run.limit_for(bench, 140, optional) == 140  # optional: no reserve


def test_no_step_starts_once_the_budget_is_spent(tmp_path, steps):
    steps(fake("only", "pass"))
    rc, summary = run(tmp_path, "--budget-s", "4")
    assert summary["steps"]["only"]["status"] == "skipped"
    assert rc == device_run.EXIT_FAILED


def test_the_commit_reaches_every_step(tmp_path, steps):
    prints = "import os; print(os.environ['GPU_PERF_COMMIT'])"
    steps(fake("one", prints), fake("two", prints))
    rc, summary = run(tmp_path, "--commit", "d8e0129")
    assert rc == device_run.EXIT_OK and summary["commit"] == "d8e0129"
    for name in ("one", "two"):
        log = tmp_path / "work" / summary["steps"][name]["log"]
        assert log.read_text().strip() == "d8e0129"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--budget-s", "nan"], "--budget-s must be"),
        (["--budget-s", "-1"], "--budget-s must be"),
        (["--only", "nope"], "unknown step 'nope'"),
        (["--commit", "HEAD;rm"], "is not a commit id"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        device_run.main(["--out", str(tmp_path / "o"), *argv])
    assert stop.value.code == device_run.EXIT_USAGE
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_output_folder_with_files_is_refused(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):
        device_run.main(["--out", str(tmp_path), "--dry-run"])
    assert "must be a new or empty folder" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_the_work_folder_may_not_lie_inside_what_comes_back(tmp_path, capsys):
    with pytest.raises(SystemExit):
        device_run.main(["--out", str(tmp_path / "o"), "--work", str(tmp_path / "o/w")])
    assert "--work must lie outside --out" in capsys.readouterr().err


def test_every_step_names_a_module_that_exists_or_is_optional():
    for step in STEPS:
        for command in (step.gpu, step.dry):
            assert command[0] == "{py}" and command[1] == "-m"
            if not command[2].startswith(("scripts.", "snippets.")):
                continue  # pytest
            module = command[2].replace(".", "/")
            found = (device_run.ROOT / f"{module}.py").is_file() or (
                device_run.ROOT / module / "__main__.py"
            ).is_file()
            assert found or step.needs_module, (step.name, command[2])


def test_the_gpu_commands_never_use_the_interpreter():
    for step in STEPS:
        assert step.gpu_env.get("TRITON_INTERPRET", "0") == "0"
        assert "--dry-run" not in step.gpu and sys.executable not in step.gpu


@pytest.mark.skipif(
    not os.environ.get("DEVICE_RUN_DRY"),
    reason="about a minute: make device-run-dry runs it (CI does, after make test)",
)
def test_the_real_dry_run_passes_every_step(tmp_path, monkeypatch):
    # As on the device: the tree has no usable .git, so every tool takes the
    # commit the run was given.
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "no-git"))
    rc, summary = run(tmp_path, "--commit", "d8e0129", "--budget-s", "900")
    assert {n: r["status"] for n, r in summary["steps"].items()} == {
        s.name: "passed" for s in STEPS
    }
    assert rc == device_run.EXIT_OK
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == [device_run.ARCHIVE, "summary.json"]
    members = archive_members(tmp_path)
    assert all(len(data) < 16 * 2**20 for data in members.values())
    assert all(name.count("/") <= 2 for name in members)  # two folders down
    records = {
        name: json.loads(data)
        for name, data in members.items()
        if name.split("/")[1] in ("bench", "qualify", "sanitizer", "serving")
    }
    assert {n.split("/")[1] for n in records} == {
        "bench",
        "qualify",
        "sanitizer",
        "serving",
    }
    for name, record in records.items():  # every result file names the commit
        identity = record.get("identity") or record.get("git") or {}
        assert identity.get("commit") == "d8e0129", name
