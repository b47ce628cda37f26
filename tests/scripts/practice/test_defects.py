"""The grader's own defects, each with the learner's file that showed it
(issue 43): a store 300 elements past either end of out, the learner's
prints, a crash in the middle of the cases, ``sys.exit``, a NameError's
line, the working directory. One child per crash; the rest share one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from scripts.practice.exercises import BY_NAME, ROOT
from scripts.practice.grader import check, check_many

ADD = BY_NAME["vector-add"]

#: A right vector add with one extra line in the kernel (EXTRA) or in the
#: launcher (BEFORE, at the launcher's first line), or a module line (TOP).
TEMPLATE = """\
import triton
import triton.language as tl
{top}

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)
    {extra}


def vector_add(x, y, out):
    n = out.numel()
    {before}
    add_kernel[(triton.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
"""

ATTEMPTS = {
    "past_end_300": {"extra": "tl.store(out_ptr + n + 299, 0.0)"},
    "before_start_300": {"extra": "tl.store(out_ptr - 300, 0.0)"},
    "prints": {"top": "print('hello from the top')", "before": "print('n is', n)"},
    "floods": {"before": "print('x' * 10_000)"},
    "exits": {"before": "import sys; sys.exit(3)"},
    "name_error": {"extra": "tl.store(out_ptr + offz, x)"},
    "writes_here": {"top": "open('made-here.txt', 'w').write('x')"},
    # Last: each ends its child, so the batch needs a new one after each.
    "dies_at_257": {"before": "import os; os._exit(3) if n == 257 else None"},
    "aborts_at_1": {"before": "import os; os.abort() if n == 1 else None"},
    "faults_at_256": {
        "before": "import ctypes; ctypes.string_at(0) if n == 256 else None"
    },
}


def attempt(folder: Path, name: str) -> Path:
    parts = {"top": "", "extra": "pass", "before": "pass"} | ATTEMPTS[name]
    path = folder / name / "mine.py"
    path.parent.mkdir(parents=True)
    path.write_text(TEMPLATE.format(**parts))
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("defects")
    paths = {name: attempt(folder, name) for name in ATTEMPTS}
    results = check_many([(ADD, p) for p in paths.values()])
    return {name: r for name, r in zip(paths, results, strict=True)} | {
        "folder": folder
    }


def messages(report) -> list[str]:
    return [o.message for o in report.outcomes if not o.passed]


@pytest.mark.parametrize("name", ["past_end_300", "before_start_300"])
def test_a_store_300_elements_past_either_end_is_caught(reports, name):
    # The guard is 1,024 elements; it was compared over 1,024 bytes, which
    # is 256 float32 elements, so these two passed.
    where = "past the end" if "past" in name else "before the start"
    failed = messages(reports[name])
    assert failed and all(f"wrote {where} of out" in m for m in failed), failed


def test_what_the_file_prints_comes_back(reports):
    printed = reports["prints"].printed
    assert "hello from the top" in printed and "n is 257" in printed
    assert all(o.passed for o in reports["prints"].outcomes)


def test_a_flood_of_prints_is_bounded_and_counted(reports):
    report = reports["floods"]
    assert len(report.printed) <= 4000 and report.dropped > 40_000


def test_sys_exit_is_named_as_an_exit_not_a_bad_address(reports):
    report = reports["exits"]
    assert len(report.outcomes) == len(ADD.cases)
    for message in messages(report):
        assert message.startswith("called sys.exit(3)"), message
        assert "address" not in message


def test_a_name_error_names_the_line_it_promises(reports):
    (first, *_) = messages(reports["name_error"])
    assert "NameError" in first and "offz" in first
    assert "at line 11: tl.store(out_ptr + offz, x)" in first, first


def test_the_file_runs_from_its_own_folder(reports):
    assert (reports["folder"] / "writes_here" / "made-here.txt").exists()
    assert not (ROOT / "made-here.txt").exists()


def test_cases_after_a_crash_are_listed_as_not_run(reports):
    outcomes = reports["dies_at_257"].outcomes
    assert [o.case for o in outcomes] == [c.name for c in ADD.cases]
    at = [o.case for o in outcomes].index("n=257")
    assert all(o.passed for o in outcomes[:at])
    died, after = outcomes[at], outcomes[at + 1 :]
    assert "ended (exit 3) in case 'n=257'" in died.message, died.message
    assert "address" not in died.message
    assert after and all(not o.ran and o.message.startswith("not run") for o in after)


def test_a_fault_is_named_as_a_bad_address(reports):
    outcomes = reports["faults_at_256"].outcomes
    at = [o.case for o in outcomes].index("n=256")
    assert "died (signal 11) in case 'n=256'" in outcomes[at].message
    assert "outside every tensor" in outcomes[at].message
    assert [o.ran for o in outcomes] == [True] * (at + 1) + [False] * (
        len(outcomes) - at - 1
    )


SLEEPS = "import os, time\n\ndef vector_add(x, y, out):\n    {}\n    time.sleep(60)\n"


def test_a_hang_is_named_and_the_cases_after_it_not_run(tmp_path):
    path = tmp_path / "hangs.py"
    path.write_text(SLEEPS.format("pass"))
    # The limit counts the child's imports too; any limit shows the message.
    report = check(ADD, path, limit_s=4)
    first = report.outcomes[0]
    assert not first.passed
    assert first.message.startswith("did not finish within 4 s")
    assert "a loop that never ends" in first.message
    assert [o.ran for o in report.outcomes[1:]] == [False] * (len(ADD.cases) - 1)


def test_the_running_case_is_named_while_it_runs(tmp_path):
    path = tmp_path / "slow.py"
    path.write_text(
        TEMPLATE.format(
            top="import time", extra="pass", before="time.sleep(2) if n == 1 else None"
        )
    )
    seen = []
    report = check(ADD, path, progress=lambda case, s: seen.append((case, s)))
    assert all(o.passed for o in report.outcomes)
    assert max(s for case, s in seen if case == "n=1") >= 1.0, seen


def test_ctrl_c_ends_the_child(tmp_path):
    pid_file = tmp_path / "pid"
    path = tmp_path / "hangs.py"
    path.write_text(
        SLEEPS.format(f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))")
    )

    def interrupt(*_):
        if pid_file.exists() and pid_file.read_text():
            raise KeyboardInterrupt

    before = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            check(ADD, path, limit_s=300)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, before)
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    pytest.fail(f"the child {child} still runs after Ctrl-C")


def test_usage_errors_come_before_torch_is_imported(tmp_path):
    code = textwrap.dedent(
        f"""
        import sys
        from scripts.practice.__main__ import main
        code = main(["check", "vector_add", {str(tmp_path / "missing.py")!r}])
        assert code == 2, code
        assert "torch" not in sys.modules, "torch was imported"
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
            timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("hung: a usage error took over 120 s")
    assert done.returncode == 0, done.stderr
    assert "missing.py: no such file" in done.stderr


def test_an_abort_is_named_as_memory_overwritten(reports):
    # glibc aborts when a store far past a guard corrupts its heap.
    outcomes = reports["aborts_at_1"].outcomes
    at = [o.case for o in outcomes].index("n=1")
    assert "aborted (signal 6) in case 'n=1'" in outcomes[at].message
    assert "overwritten" in outcomes[at].message
