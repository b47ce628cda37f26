"""Every task's kill matrix, beyond the first task's (test_refresh.py):
each broken candidate of a task's corpus rejected by the check (and in the
case) its docstring names, and by no other check; each good one and the
course's kernel qualified; each check or case the task's ``only_catches``
names catching its candidate alone.

A task's whole corpus takes minutes of CPU, so it runs behind the refresh
command (``python -m scripts.qualify.refresh corpus --task NAME`` writes
``results/qualify/corpus-NAME.cpu.json``); these tests read that file and
check it against the corpus as it is now (every file's sha256, what its
docstring expects), which costs milliseconds. test_task.py runs a few of
the candidates live.
"""

import functools

import pytest

import evidence
from scripts.qualify.checks import CHECK_ORDER
from scripts.qualify.refresh import (
    case_kill_matrix,
    expectation,
    expected_case,
    kill_matrix,
    result_path,
    task_corpus_files,
)
from scripts.qualify.task import find, tasks

#: Every task but the first, whose corpus test_refresh.py checks.
TASKS = sorted(name for name in tasks() if name != "residual_add_relu")


def stale(name: str) -> str:
    return (
        f"results/qualify/corpus-{name}.cpu.json is stale: run python -m "
        f"scripts.qualify.refresh corpus --task {name}"
    )


@functools.cache
def committed(name: str) -> dict:
    path = result_path(f"corpus-{name}")
    assert path.is_file(), stale(name)
    return evidence.read("verdict", path).data


def entries(name: str) -> dict[str, dict]:
    return {entry["path"]: entry for entry in committed(name)["candidates"]}


@pytest.mark.parametrize("name", TASKS)
def test_the_committed_corpus_is_the_corpus_as_it_is_now(name):
    found = entries(name)
    assert committed(name)["task"] == name
    assert sorted(found) == sorted(task_corpus_files(name)), stale(name)
    for path, entry in found.items():
        assert entry["sha256"] == evidence.sha256_file(evidence.ROOT / path), (
            f"{path} changed: " + stale(name)
        )
        expected = expectation(path)
        assert {k: entry[f"expected_{k}"] for k in expected} == expected, path
        assert entry["expected_case"] == expected_case(path), path


@pytest.mark.parametrize("name", TASKS)
def test_each_candidate_gets_its_verdict_from_the_check_it_names(name):
    for path, entry in entries(name).items():
        assert entry["status"] == entry["expected_status"], (
            f"{path}: expected {entry['expected_status']}, got {entry['status']}"
        )
        if entry["expected_status"] == "rejected":
            # One check rejects it, the one its docstring names.
            assert entry["failed_checks"] == [entry["expected_check"]], path
            if entry["expected_case"]:
                assert entry["expected_case"] in entry["failed_cases"], path
        else:
            assert not entry["failed_checks"] and not entry["failed_cases"], path


@pytest.mark.parametrize("name", TASKS)
def test_each_named_catch_is_the_only_one_that_catches_its_candidate(name):
    task, found = find(name), entries(name)
    data = committed(name)
    for what, path in task.only_catches.items():
        entry = found[path]
        if what in CHECK_ORDER:
            assert entry["failed_checks"] == [what], f"{what}: {path}"
            assert path in data["kill_matrix"][what]["only"]
        else:  # a case of the task's family
            assert entry["failed_cases"] == [what], f"{what}: {path}"
            assert path in data["case_kill_matrix"][what]["only"]


@pytest.mark.parametrize("name", TASKS)
def test_the_kill_matrices_are_the_entries(name):
    data = committed(name)
    assert data["kill_matrix"] == kill_matrix(data["candidates"])
    assert data["case_kill_matrix"] == case_kill_matrix(data["candidates"])
    statuses = [entry["expected_status"] for entry in data["candidates"]]
    assert statuses.count("rejected") >= 2 and statuses.count("qualified") >= 2


@pytest.mark.parametrize("name", TASKS)
def test_every_task_has_two_unusual_good_candidates(name):
    good = [p for p in task_corpus_files(name) if "/good/" in p]
    assert len(good) >= 2, good


@pytest.mark.parametrize("name", ["matmul", "attention"])
def test_the_product_tasks_have_a_candidate_only_the_tf32_rule_catches(name):
    assert find(name).only_catches["float32"].endswith("tf32_default_dot.py")


def test_a_kill_matrix_by_case_sees_a_case_that_catches_alone():
    matrix = case_kill_matrix(
        [
            {"path": "a.py", "failed_cases": ["ragged"]},
            {"path": "b.py", "failed_cases": ["ragged", "float32"]},
            {"path": "c.py", "failed_cases": []},
        ]
    )
    assert matrix == {
        "float32": {"catches": ["b.py"], "only": []},
        "ragged": {"catches": ["a.py", "b.py"], "only": ["a.py"]},
    }


def test_the_refresh_command_refuses_an_unknown_task_in_one_line(capsys):
    from scripts.qualify import refresh

    with pytest.raises(SystemExit) as raised:
        refresh.main(["corpus", "--task", "nope"])
    assert raised.value.code == 2
    assert "no task 'nope'" in capsys.readouterr().err
