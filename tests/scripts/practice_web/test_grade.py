"""The page's grader held to the CLI's, not trusted: every starter, solution
and attempt of every exercise the page runs gets the same verdict and the
same hint, case by case, as the CLI grader gave it (the session's one
grading, ``tests/scripts/practice/test_grader.py``); on each file's smallest
case the page's subset and Triton's interpreter store the same values (bit
for bit where the exercise is exact, else within its tolerance); and a
generated set of small programs over the subset agrees with the interpreter.
``-s`` prints the equivalence table."""

from __future__ import annotations

import importlib.util
import math
import random
import struct
import time
from pathlib import Path

import pytest

from scripts.practice.exercises import EXERCISES
from scripts.practice_web import cases, grade, runtime
from scripts.practice_web import tensor as page_tensor
from tests.helpers.shared import once_per_session
from tests.scripts.practice import test_grader as cli_tests

#: The session's one grading of every file by the CLI grader, shared.
graded = cli_tests.graded
every_file = cli_tests.every_file

#: Files the page refuses, each for the construct it names: the rest must run.
REFUSED = {"vector_add/wrong_runs_the_solution_file": "import importlib.util"}


def key(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def page_files():
    return [(e, p) for e, p in every_file() if cases.runs_on_page(e)]


def test_the_page_runs_every_exercise_but_those_too_big_for_it():
    local = [e.name for e in EXERCISES if not cases.runs_on_page(e)]
    assert local == ["fix-int32-offset-overflow"]  # a 2 GiB tensor


@pytest.fixture(scope="module")
def page_graded():
    began = time.process_time()
    found = {}
    for exercise, path in page_files():
        report = grade.check(exercise, path.read_text(), str(path))
        found[key(path)] = report
    return found, time.process_time() - began


def test_every_file_gets_the_clis_verdict_and_hint_case_by_case(graded, page_graded):
    reports, _ = page_graded
    for name, report in reports.items():
        if name in REFUSED:
            assert report.refused.startswith(REFUSED[name]), (name, report)
            continue
        assert not report.refused and not report.error, (name, report)
        cli = [(case, ok, hint) for case, ok, _, hint in graded[name]]
        page = [(o.case, o.passed, o.hint) for o in report.outcomes]
        assert page == cli, name
        said = zip(report.outcomes, graded[name], strict=True)
        raced = [(o.message, c[2]) for o, c in said if c[3] == "race"]
        assert all(ours == theirs for ours, theirs in raced), name  # the sentence too


# --------------------------------------------------------------------------
# Values: the smallest case of each file, in both
# --------------------------------------------------------------------------


def smallest(exercise) -> int:
    sizes = [sum(math.prod(s.shape) for s in c.inputs) for c in exercise.cases]
    return sizes.index(min(sizes))


def interpreter_out(exercise, path: Path, index: int):
    """out (flat) after Triton's interpreter ran the file on the CLI's case."""
    import torch

    from scripts.practice.grader import GUARD, SENTINEL, build_case
    from scripts.qualify import learner_child as child

    case = exercise.cases[index]
    bases = build_case(case, index)
    args = [child.view_of(child.guarded(bases[s.name], GUARD), s.view)
            for s in case.inputs]  # fmt: skip
    dtype = child.DTYPES[case.out_dtype]
    out, _ = child.fresh_out(case.out_shape, dtype, SENTINEL, GUARD)
    function = child.load_function(index, str(path), exercise.function)
    try:
        function(*args, out, **case.params)
    except Exception as exc:  # the same file must raise on the page too
        return f"raised {type(exc).__name__}"
    return out.to(torch.float64).reshape(-1).tolist()


def page_out(exercise, path: Path, index: int):
    case = exercise.cases[index]
    values = cases.build(case, index)
    with grade.page_torch():
        function = runtime.load(path.read_text(), str(path))[exercise.function]
        returned = grade.run_case(function, case, values, exercise, str(path))
    if returned["status"] != "ok":
        return f"raised {returned['status']}"
    return [float(v) for v in returned["out"].tolist_flat()]


def bits(value: float) -> bytes:
    return b"nan" if value != value else struct.pack("<d", value)


def agreement(theirs, ours, tolerance) -> str:
    """'bits', 'close', 'raised' or what differs."""
    if isinstance(theirs, str) or isinstance(ours, str):
        return "raised" if isinstance(theirs, str) == isinstance(ours, str) else \
            f"{theirs!s:.40} vs {ours!s:.40}"  # fmt: skip
    if all(bits(a) == bits(b) for a, b in zip(theirs, ours, strict=True)):
        return "bits"
    if tolerance[0] == "exact":
        return "differs in bits under an exact contract"
    atol, rtol = tolerance[1:]
    ok = all(
        a == b or (a != a and b != b) or abs(a - b) <= atol + rtol * abs(a)
        for a, b in zip(theirs, ours, strict=True)
    )  # fmt: skip
    return "close" if ok else "outside the tolerance"


@pytest.fixture(scope="module")
def values(tmp_path_factory):
    """{file: agreement} on each file's smallest case (the interpreter side
    once per session)."""
    files = [(e, p) for e, p in page_files()
             if key(p) not in REFUSED and not p.stem.startswith("wrong_imports")
             and key(p) != "vector_add/wrong_uses_the_reference"]  # fmt: skip

    def run_interpreter() -> dict:
        began = time.process_time()
        found = {key(p): interpreter_out(e, p, smallest(e)) for e, p in files}
        return {"outs": found, "seconds": time.process_time() - began}

    theirs = once_per_session(
        tmp_path_factory, "practice-web-interpreter", run_interpreter
    )
    found = {}
    for exercise, path in files:
        ours = page_out(exercise, path, smallest(exercise))
        found[key(path)] = agreement(
            theirs["outs"][key(path)], ours, exercise.tolerance
        )
    return found, theirs["seconds"]


def test_the_subset_stores_the_interpreters_values(values):
    found, _ = values
    wrong = {
        name: how
        for name, how in found.items()
        if how not in ("bits", "close", "raised")
    }
    assert not wrong, wrong


def test_print_the_equivalence_table(graded, page_graded, values, generated, capsys):
    reports, page_seconds = page_graded
    agreements, interpreter_seconds = values
    lines = ["| file | cases | CLI passes | page passes | hints equal | values |",
             "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for name, report in reports.items():
        cli = graded[name]
        if report.refused:
            construct = report.refused.split(" is ")[0]
            passes = sum(c[1] for c in cli)
            lines.append(
                f"| {name} | {len(cli)} | {passes} | refused: {construct} | - | - |"
            )
            continue
        same = all(o.hint == c[3] for o, c in zip(report.outcomes, cli, strict=True))
        lines.append(
            f"| {name} | {len(cli)} | {sum(c[1] for c in cli)} | "
            f"{sum(o.passed for o in report.outcomes)} | {'yes' if same else 'NO'} | "
            f"{agreements.get(name, '-')} |"
        )
    programs, bitwise = generated
    lines.append(f"\ngenerated programs: {programs}, bit for bit: {bitwise}; "
                 f"page grading {page_seconds:.2f} s CPU, interpreter side "
                 f"{interpreter_seconds:.2f} s CPU (once per session)")  # fmt: skip
    with capsys.disabled():
        print("\n" + "\n".join(lines))


# --------------------------------------------------------------------------
# Generated programs: random expressions, reductions and stores
# --------------------------------------------------------------------------

EXACT = (
    "({a} + {b})", "({a} - {b})", "({a} * {b})", "({a} * 1.7)", "({a} + 0.5)",
    "({a} / ({b} * {b} + 1.0))", "tl.where({a} < {b}, {a}, {b})",
    "tl.maximum({a}, {b})", "tl.minimum({a}, {b})", "tl.abs({a})",
    "tl.sqrt(tl.abs({a}))", "(-{a})", "(tl.sum({a}, axis=1)[:, None] * {b})",
    "((({a} * 10.0).to(tl.int32) // 3 + ({b} * 4.0).to(tl.int32) % 5)"
    ".to(tl.float32))",
)  # fmt: skip
APPROXIMATE = ("tl.exp(tl.minimum({a}, 20.0))", "tl.log(tl.abs({a}) + 1.0)",
               "tl.exp2(tl.minimum({a}, 20.0))")  # fmt: skip
STORES = {
    "all": "tl.store(out_ptr + offs, v, mask=mask)",
    "row sums": "tl.store(out_ptr + rows, tl.sum(v, axis=1), mask=rows < R)",
    "column sums": "tl.store(out_ptr + cols, tl.sum(v, axis=0))",
    "row maxima": "tl.store(out_ptr + rows, tl.max(v, axis=1), mask=rows < R)",
    "row scans": "tl.store(out_ptr + offs, tl.cumsum(v, axis=1), mask=mask)",
    "total": "tl.store(out_ptr, tl.sum(tl.sum(v, axis=1), axis=0))",
    "dot": "tl.store(out_ptr + offs, tl.dot(v, w, input_precision='ieee'), mask=mask)",
}
PROGRAM = """
@triton.jit
def program_{i}(x_ptr, y_ptr, out_ptr, R, BR: tl.constexpr, BC: tl.constexpr):
    rows = tl.arange(0, BR)
    cols = tl.arange(0, BC)
    mask = (rows[:, None] < R) & (cols[None, :] < BC)
    offs = rows[:, None] * BC + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other={other})
    y = tl.load(y_ptr + offs, mask=mask, other=0.5)
    w = tl.load(y_ptr + cols[:, None] * BC + cols[None, :])
    v = {expr}
    {store}
"""
COUNT = 48


def expression(rng: random.Random, depth: int, exact: bool) -> str:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice("xy")
    forms = EXACT if exact else EXACT + APPROXIMATE
    form = rng.choice(forms)
    return form.format(a=expression(rng, depth - 1, exact),
                       b=expression(rng, depth - 1, exact))  # fmt: skip


def programs() -> list[tuple[str, bool, str]]:
    """(source, exact, store) for each generated program, from a fixed seed."""
    rng, made = random.Random(49), []
    for i in range(COUNT):
        exact = i % 2 == 0
        store = list(STORES)[i % len(STORES)]
        exact = exact and store != "dot"
        expr = expression(rng, 3, exact)
        other = rng.choice(["0.0", "-1.0", "2.5"])
        made.append((PROGRAM.format(i=i, other=other, expr=expr,
                                    store=STORES[store]), exact, store))  # fmt: skip
    return made


def run_both(tmp_path: Path) -> tuple[int, int]:
    import torch

    made = programs()
    source = "import triton\nimport triton.language as tl\n" + "".join(
        s for s, _, _ in made)  # fmt: skip
    file = tmp_path / "generated_programs.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location("generated_programs", file)
    real = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real)
    ours = runtime.load(source, str(file))
    gen = torch.Generator().manual_seed(7)
    x, y = (torch.randn(256, generator=gen) for _ in range(2))
    bitwise = 0
    for i, (_, exact, store) in enumerate(made):
        theirs = torch.full((256,), -7.0)
        getattr(real, f"program_{i}")[(1,)](x, y, theirs, 7, BR=8, BC=16)
        px, py = (
            page_tensor.tensor(t.tolist(), dtype=page_tensor.float32) for t in (x, y)
        )
        mine = page_tensor.full((256,), -7.0, page_tensor.float32)
        ours[f"program_{i}"][(1,)](px, py, mine, 7, BR=8, BC=16)
        a, b = theirs.to(torch.float64).tolist(), mine.tolist()
        same = all(bits(p) == bits(q) for p, q in zip(a, b, strict=True))
        bitwise += same
        if exact:
            assert same, f"program {i} ({store}) differs in bits:\n{made[i][0]}"
        else:
            assert agreement(a, b, ("close", 1e-5, 1e-5)) in ("bits", "close"), made[i][
                0
            ]
    return len(made), bitwise


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return run_both(tmp_path_factory.mktemp("generated"))


def test_generated_programs_agree_with_the_interpreter(generated):
    count, bitwise = generated
    assert count == COUNT and bitwise >= COUNT // 2  # every exact one, bit for bit
