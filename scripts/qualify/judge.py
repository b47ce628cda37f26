"""Judging, on the parent's side: pure functions of the child's claims and of
tensor bytes (used by ``scripts/qualify/evaluator.py``; tested in
``tests/scripts/qualify/test_judge.py``).

The first part is general, so a grader for another operation can call it:
compare an output with a reference under a tolerance and a NaN policy, find
elements a sentinel fill shows were never written, count input elements that
changed, say whether two storages overlap, and name a wrong dtype or shape.
Each returns a problem as one sentence, or None.

The second part judges the calls and cases of a task with them, checks in
the order of ``checks.CHECK_ORDER``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import torch

from scripts.qualify.builders import Call
from scripts.qualify.cases import Case
from scripts.qualify.checks import CHECK_ORDER
from scripts.qualify.race_report import race_problem
from scripts.qualify.records import RecordError
from scripts.qualify.review import clip
from snippets.kernel_correctness_contracts.contract import (
    allowed_ulps,
    bits,
    bits_changed,
    names_argument,
    nan_mismatch,
    value_mismatch,
)

CASE_FILE, FINAL_FILE = "case.safetensors", "final.safetensors"

# --------------------------------------------------------------------------
# General: any elementwise output against a reference
# --------------------------------------------------------------------------


def compare(
    out: torch.Tensor, expected: torch.Tensor, ulps: int, nan: str = "mask"
) -> str | None:
    """Where `expected` is a number, `out` is within `ulps` of it; with
    nan="mask", where `expected` is NaN, so is `out`; nan="bits" compares
    NaN payloads and signs exactly too. One sentence, or None."""
    problem = value_mismatch(out, expected, ulps)
    if problem or nan == "ignore":
        return problem
    if nan == "bits":
        where = expected.isnan()
        if where.any() and not bits(out)[where].equal(bits(expected)[where]):
            count = int((bits(out)[where] != bits(expected)[where]).sum())
            return f"{count} NaN results carry another payload or sign"
        return None
    return nan_mismatch(out, expected)


def never_written(out: torch.Tensor, sentinel: int) -> str | None:
    """Elements (in row-major order) that still hold the sentinel fill's
    bytes, as ranges: "elements 1024..1026 were never written". None if
    none do."""
    width = out.element_size()
    pattern = int.from_bytes(bytes([sentinel]) * width, "little", signed=True)
    flat = bits(out.reshape(-1))
    hit = (flat == pattern).nonzero().flatten().tolist()
    if not hit:
        return None
    ranges, start, last = [], hit[0], hit[0]
    for index in hit[1:]:
        if index != last + 1:
            ranges.append((start, last))
            start = index
        last = index
    ranges.append((start, last))
    text = ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in ranges[:4])
    more = f" and {len(ranges) - 4} more ranges" if len(ranges) > 4 else ""
    noun, verb = ("element", "was") if len(hit) == 1 else ("elements", "were")
    return f"{noun} {text}{more} {verb} never written (still the sentinel fill)"


def mutated(before: torch.Tensor, after: torch.Tensor) -> int:
    """How many elements of a storage differ bit for bit."""
    return bits_changed(before, after)


def overlaps(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Two [start, end) byte ranges share memory."""
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


def meta_problem(
    got_shape, got_dtype: str, shape, dtype: str, got_device=None, device=None
) -> str | None:
    """A result of the wrong shape, dtype or device, in one sentence."""
    if list(got_shape or ()) != list(shape) or got_dtype != dtype:
        return (
            f"returned shape {tuple(got_shape or ())} {got_dtype}; expected "
            f"{tuple(shape)} {dtype}"
        )
    if got_device != device:
        return f"returned a tensor on {got_device}, inputs on {device}"
    return None


# --------------------------------------------------------------------------
# The parent's copy of every input
# --------------------------------------------------------------------------


@dataclass
class Pristine:
    """The parent's untouched copy of one call's inputs."""

    bases: list[torch.Tensor]
    views: list[torch.Tensor]


def pristine_for(calls: list[Call]) -> list[Pristine | None]:
    result: list[Pristine | None] = []
    for call in calls:
        if call.mode != "values":
            result.append(None)
        elif call.reuse == "same":
            result.append(result[-1])
        elif call.reuse == "refill":
            before = result[-1]
            bases = [b.clone() for b in before.bases]
            views = [
                b.as_strided(v.shape, v.stride(), v.storage_offset())
                for b, v in zip(bases, before.views, strict=True)
            ]
            for view, values in zip(views, call.refill, strict=True):
                view.copy_(values)
            result.append(Pristine(bases, views))
        else:
            bases = []
            for spec in call.args:  # an index: a view of that input's storage
                shared = spec.get("storage")
                bases.append(
                    bases[shared] if shared is not None else spec["base"].clone()
                )
            views = [
                base.as_strided(spec["size"], spec["stride"], spec["offset"])
                for base, spec in zip(bases, call.args, strict=True)
            ]
            result.append(Pristine(bases, views))
    return result


def expected_meta(call: Call, pristine: Pristine | None) -> tuple[list, str]:
    if pristine is not None:
        return list(pristine.views[0].shape), str(pristine.views[0].dtype)
    return list(call.args[0]["size"]), call.args[0]["dtype"]


# --------------------------------------------------------------------------
# One call
# --------------------------------------------------------------------------


@dataclass
class Failure:
    check: str
    case: str
    call: int  # 1-based; 0 for the case as a whole
    detail: str

    def to_dict(self) -> dict:
        return {
            "check": self.check,
            "case": self.case,
            "call": self.call,
            "detail": self.detail,
        }


@dataclass
class Tally:
    """The checks one call evaluated, and those that failed."""

    failures: list[tuple[str, str]] = field(default_factory=list)
    evaluated: int = 0

    def check(self, name: str, problem) -> bool:
        self.evaluated += 1
        if problem:
            self.failures.append((name, problem))
        return not problem


def launch_list(launches: list[dict]) -> str:
    names = sorted({clip(r["kernel"], 60) for r in launches})
    return ", ".join(names) if names else "none"


def tensor_named(tensors: dict, name: str, file: str) -> torch.Tensor:
    if name not in tensors:
        raise RecordError(file, f"holds no tensor {name!r}")
    return tensors[name]


def launch_problem(launches: list[dict], out: dict) -> str | None:
    own = [r for r in launches if r["own"]]
    if not launches:
        return "launched no Triton kernel"
    if not own:
        return f"launched only kernels defined elsewhere: {launch_list(launches)}"
    if not any(r["writes_output"] for r in own) and out["plain"]:
        return (
            f"launched {launch_list(own)}, but none was given the "
            "returned tensor's storage: the result was computed another way"
        )
    return None


def storage_problem(out: dict) -> str | None:
    """A result whose storage holds more than its elements: a padded buffer
    or a view into a bigger hidden one (the contract's result is a new
    tensor of its own)."""
    itemsize = torch.empty((), dtype=DTYPES_BY_NAME[out["dtype"]]).element_size()
    needed = math.prod(out["shape"]) * itemsize
    size, offset = out["storage_nbytes"], out["storage_offset"]
    if size is None or offset is None:
        raise RecordError(CASE_FILE, "a returned tensor without its storage's size")
    if size == needed and offset == 0:
        return None
    return (
        f"the result's storage holds {size} bytes (starting {offset} elements "
        f"in) for {needed} bytes of elements: a bigger buffer behind it"
    )


DTYPES_BY_NAME = {
    str(d): d for d in (torch.float32, torch.float16, torch.bfloat16, torch.float64)
}


def rounding_problem(values: torch.Tensor, expected: torch.Tensor) -> str | None:
    """Where the reference is a number, the result is it bit for bit: the
    float32 sum rounded once, to nearest even (the reference rounds so)."""
    problem = value_mismatch(values, expected, 0)
    if problem is None:
        return None
    return "not rounded to nearest even: " + problem.replace(" by more than 0 ulp", "")


def bound_problem(
    values, views, descriptor, task=None
) -> tuple[str | None, torch.Tensor]:
    """(where the output leaves the descriptor's error bound around the
    float64 truth, in one sentence or None; the truth). NaN in the truth is
    the nan-mask check's. A task may name its own reference and the shape
    its bound reads (``Task.reference``, ``Task.bound_shape``)."""
    inputs64 = tuple(v.to(torch.float64) for v in views)
    reference = (task and task.reference) or descriptor.reference
    truth = reference(*inputs64)
    if task is not None and task.bound_shape is not None:
        shape = task.bound_shape(views)
    else:
        cols = views[0].shape[-1] if views[0].dim() else 1
        shape = {"rows": max(1, views[0].numel() // max(cols, 1)), "cols": cols}
    bound = descriptor.error_bound(inputs64, truth, views[0].dtype, shape)
    # Below the normal range precision is absolute, not relative (gradual
    # underflow): four steps of the output dtype's subnormal spacing.
    info = torch.finfo(values.dtype)
    bound = bound + 4 * info.smallest_normal * info.eps
    error = (values.to(torch.float64) - truth).abs()
    exact = values.to(torch.float64) == truth  # infinities included
    wrong = ~truth.isnan() & ~exact & ~(error <= bound)
    if not wrong.any():
        return None, truth
    first = tuple(int(i) for i in wrong.nonzero()[0])
    return (
        f"{int(wrong.sum())} of {truth.numel()} elements outside the error "
        f"bound; first at index {first}: expected {truth[first].item():.6g}, "
        f"got {values[first].double().item():.6g}"
    ), truth


def tf32_said(launches: list[dict], values: torch.Tensor) -> str:
    """The values check's words when a float32 result came from a kernel that
    ran a float32 ``tl.dot`` as TF32 (the interpreter rounds its operands as
    a GPU's default does: ``interpreter_rounding.round_tf32_dots``)."""
    tf32 = [r for r in launches if r["tf32_dots"]]
    if not tf32 or values.dtype != torch.float32:
        return ""
    return (
        f"TF32: {clip(tf32[0]['kernel'], 60)} ran a float32 tl.dot without "
        'input_precision="ieee", which a GPU runs as TF32 (its operands '
        "rounded to 10 fraction bits here, as there); "
    )


def judge_kernel_call(
    call: Call,
    number: int,
    claim: dict,
    tensors: dict,
    pristine: Pristine | None,
    previous: torch.Tensor | None,
    interpreter: bool,
    task=None,
) -> tuple[list[tuple[str, str]], int, torch.Tensor | None]:
    """(failures as (check, detail), checks evaluated, the output's bytes or
    None) for a supported input. Raises RecordError for a child file that
    contradicts itself."""
    task = task or _family_task()
    names = task.args
    tally = Tally()
    launches = claim["launches"]
    violations = [r["violation"] for r in launches if r["violation"]]
    raised = claim["raised"]
    if raised and violations:
        tally.check("grid-limits", f"{violations[0]}; the launch fails on a GPU")
        return tally.failures, tally.evaluated, None
    if not tally.check(
        "completes", raised and f"raised {raised['type']}: {clip(raised['message'])}"
    ):
        return tally.failures, tally.evaluated, None
    tally.check("grid-limits", violations and violations[0])
    shape, dtype = expected_meta(call, pristine)
    if task.output == "reference" and pristine is not None:
        meta = task.answer(*pristine.views)
        shape, dtype = list(meta.shape), str(meta.dtype)
    out = claim["output"]
    if out is None:
        raise RecordError("case.json", f"call {number} has neither output nor error")
    if math.prod(shape):
        tally.check("launches-kernel", launch_problem(launches, out))
        broken = [r for r in launches if r["own"] and r["compile_error"]]
        tally.check(
            "compiles-for-gpu",
            broken
            and f"{clip(broken[0]['kernel'], 60)} does not compile for sm_90a: "
            f"{clip(broken[0]['compile_error'], 200)}",
        )
    problem = None
    values = None
    if not out["plain"]:
        problem = f"returned a {clip(out['type'], 60)}, not a torch.Tensor"
    elif call.mode == "values":
        values = tensor_named(tensors, f"c{number}.out", CASE_FILE)
        if out["shape"] != list(values.shape) or out["dtype"] != str(values.dtype):
            raise RecordError(CASE_FILE, f"call {number}: bytes and claims disagree")
    if problem is None:
        problem = meta_problem(
            out["shape"],
            out["dtype"],
            shape,
            dtype,
            out["device"],
            claim["input_device"],
        )
    if not tally.check("output-type", problem):
        return tally.failures, tally.evaluated, None
    tally.check(
        "output-fresh",
        out["aliases"]
        and "the result shares memory with " + " and ".join(out["aliases"]),
    )
    if claim["earlier_changed"]:  # judged only when it fails: the end-of-run
        tally.check(  # comparison counts these checks, from the parent's bytes
            "unchanged-after-return",
            "during this call, earlier results changed: "
            + clip(", ".join(claim["earlier_changed"]), 200),
        )
    tally.check("output-compact", storage_problem(out))
    tally.check(
        "state-unchanged",
        claim["state_changed"]
        and "the call changed " + clip("; ".join(claim["state_changed"]), 240),
    )
    if call.mode != "values":
        if claim["race"]:  # judged only when found, so counts stay those of
            tally.check("race-free", race_problem(claim["race"]))  # before
        return tally.failures, tally.evaluated, None
    changed = []
    for name, before in zip(names, pristine.bases, strict=True):
        after = tensor_named(tensors, f"c{number}.{name}", CASE_FILE)
        if after.dtype != before.dtype or after.shape != before.shape:
            raise RecordError(CASE_FILE, f"call {number}: {name}'s storage resized")
        if (count := mutated(before, after)) > 0:
            changed.append(f"{name}: {count} elements of its storage")
    for name in claim["inputs_written"]:
        if name in names and not any(c.startswith(name + ":") for c in changed):
            changed.append(f"{name}: in place, restored before returning")
    tally.check(
        "inputs-unchanged", changed and "the call wrote to " + "; ".join(changed)
    )
    if task.tolerance == "bound":
        problem, expected = bound_problem(
            values, pristine.views, task.descriptor_object, task
        )
        tally.check("values", problem and tf32_said(launches, values) + problem)
        tally.check("nan-mask", nan_mismatch(values, expected))
        ulps = 0
    else:
        expected = task.answer(*pristine.views)
        ulps = allowed_ulps(expected.dtype, interpreter)
        tally.check("values", value_mismatch(values, expected, ulps))
        tally.check("nan-mask", nan_mismatch(values, expected))
    if ulps > 0:  # the tolerance allows what an exact comparison decides
        tally.check("rounding", rounding_problem(values, expected))
    if call.reuse == "same" and previous is not None:
        differ = mutated(previous, values)
        tally.check(
            "deterministic",
            differ
            and f"{differ} of {values.numel()} elements "
            "differ bit for bit from the previous call on the same inputs",
        )
    if claim["race"]:
        tally.check("race-free", race_problem(claim["race"]))
    return tally.failures, tally.evaluated, values


def _family_task():
    from scripts.qualify.task import of_family

    return of_family("elementwise-binary")


def signature_pattern(args: tuple[str, ...]) -> re.Pattern:
    """ "f(a, b)": naming the arguments through the signature names none."""
    inside = r"\s*,\s*".join(re.escape(a) for a in args)
    return re.compile(rf"\w*\(\s*{inside}\s*\)")


def message_problem(message: str, call: Call, args=None) -> str | None:
    """The message names the offending argument (not through the function's
    signature) and shows the value that is wrong."""
    args = args or _family_task().args
    plain = signature_pattern(args).sub(" ", message)
    if not names_argument(plain, call.expect_names):
        return "does not name " + " or ".join(call.expect_names)
    if call.expect_values and not any(v in plain for v in call.expect_values):
        return "does not show the value that is wrong (" + call.expect_values[0] + ")"
    return None


def judge_error_call(
    call: Call, claim: dict, args=None
) -> tuple[list[tuple[str, str]], int]:
    """(failures, checks evaluated) for an input the contract refuses."""
    raised = claim["raised"]
    if raised is None:
        what = clip((claim["output"] or {}).get("type", "value"), 60)
        detail = (
            f"{call.note}: returned a {what} instead of raising {call.expect_error}"
        )
        return [("error-type", detail)], 1
    if call.expect_error not in raised["mro"]:
        detail = (
            f"{call.note}: raised {clip(raised['type'], 60)}: "
            f"{clip(raised['message'])}; the contract says {call.expect_error}"
        )
        return [("error-type", detail)], 1
    failures = []
    if problem := message_problem(raised["message"], call, args):
        failures.append(
            (
                "error-message",
                f"{call.note}: {clip(raised['type'], 60)}("
                f"{clip(raised['message'])!r}) {problem}",
            )
        )
    if claim["launches"]:
        failures.append(
            (
                "validates-first",
                f"{call.note}: launched {launch_list(claim['launches'])} before "
                f"raising {clip(raised['type'], 60)}",
            )
        )
    return failures, 3


# --------------------------------------------------------------------------
# One case, and the end of the run
# --------------------------------------------------------------------------


@dataclass
class CaseResult:
    case: Case
    result: str  # "pass", "fail", "not run"
    failures: list[Failure] = field(default_factory=list)
    calls: int = 0
    checks: int = 0
    seconds: float = 0.0

    def fail(self, failure: Failure) -> None:
        self.failures.append(failure)
        self.result = "fail"

    def to_dict(self) -> dict:
        return {
            "name": self.case.name,
            "group": self.case.group,
            "kind": self.case.kind,
            "mode": None,
            "result": self.result,
            "calls": self.calls,
            "checks": self.checks,
            "failures": [f.to_dict() for f in self.failures],
            "seconds": round(self.seconds, 3),
        }


@dataclass
class Judged:
    """One case judged, with what the end-of-run check compares against."""

    result: CaseResult
    outputs: dict[str, torch.Tensor]  # "k{i}.c{n}.out" -> bytes at return
    inputs: dict[str, torch.Tensor]  # "k{i}.chain{j}.x" -> pristine storage
    where: dict[str, int]  # tensor name -> call number


def judge_case(
    index: int,
    case: Case,
    calls: list[Call],
    claim: dict,
    tensors: dict,
    interpreter: bool,
    task=None,
) -> Judged:
    task = task or _family_task()
    pristine = pristine_for(calls)
    if claim["name"] != case.name or len(claim["calls"]) != len(calls):
        raise RecordError(f"case-{index}.json", "names another case or call count")
    result = CaseResult(case, "pass", calls=len(calls), seconds=claim["seconds"])
    judged = Judged(result, {}, {}, {})
    previous = None
    chain = -1
    for number, (call, rec, pure) in enumerate(
        zip(calls, claim["calls"], pristine, strict=True), start=1
    ):
        if call.mode == "error":
            found, evaluated = judge_error_call(call, rec, task.args)
            values = None
        else:
            found, evaluated, values = judge_kernel_call(
                call,
                number,
                rec,
                tensors,
                pure,
                previous,
                interpreter,
                task,
            )
        if call.reuse is None:
            chain += 1
        if call.mode == "values":
            if values is not None:
                judged.outputs[f"k{index}.c{number}.out"] = values
                judged.where[f"k{index}.c{number}.out"] = number
            for name, base in zip(task.args, pure.bases, strict=True):
                # The bytes the storage held when the call returned (a write
                # during the call is the inputs check's, not counted twice).
                at_return = tensors.get(f"c{number}.{name}", base)
                judged.inputs[f"k{index}.chain{chain}.{name}"] = at_return
                judged.where[f"k{index}.chain{chain}.{name}"] = number
        result.checks += evaluated
        result.failures += [Failure(c, case.name, number, d) for c, d in found]
        previous = values
    result.failures.sort(key=lambda f: (f.call, CHECK_ORDER.index(f.check)))
    if result.failures:
        result.result = "fail"
    return judged


def judge_end_of_run(judged: list[Judged], final: dict) -> int:
    """Compare every earlier output and input with the end-of-run bytes;
    failures and the checks evaluated are added to their cases. Returns the
    checks evaluated in all."""
    evaluated = 0
    for item in judged:
        case = item.result.case.name
        for name, expected in [*item.outputs.items(), *item.inputs.items()]:
            evaluated += 1
            item.result.checks += 1
            now = tensor_named(final, name, FINAL_FILE)
            if now.dtype != expected.dtype or now.shape != expected.shape:
                raise RecordError(FINAL_FILE, f"{name} changed shape or dtype")
            differ = mutated(expected, now)
            if not differ:
                continue
            call = item.where[name]
            what = (
                f"the result of call {call}"
                if name.endswith(".out")
                else f"{name.rsplit('.', 1)[1]}'s storage (last used by call {call})"
            )
            item.result.fail(
                Failure(
                    "unchanged-after-return",
                    case,
                    call,
                    f"{what} changed after the call returned: {differ} of "
                    f"{expected.numel()} elements differ at the end of the run",
                )
            )
    return evaluated
