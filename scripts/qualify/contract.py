"""The evaluator's contract as data: its checks, the interpreter divergences
it knows, what no black-box run can show, and ``contract()``, the plain
record every verdict carries (used by ``scripts/qualify/evaluator.py``; the
pages read the committed copy, never this module).

The kernel's own facts (its reference, goals and shapes) come from its
descriptor, ``kernels/residual_add_relu.py:DESCRIPTOR``, serialised by the
descriptor itself, so nothing here retypes them.
"""

from __future__ import annotations

import re

from kernels.launches import GRID_LIMITS
from kernels.residual_add_relu import DESCRIPTOR
from scripts.qualify import interpreter_rounding, review, sandbox, worker
from scripts.qualify.cases import (
    INTERPRETER_MAX_NUMEL,
    bench_dtype,
    bench_shapes,
    cases,
)
from scripts.qualify.gate import gate_rules

EXIT_QUALIFIED, EXIT_REJECTED, EXIT_HARNESS, EXIT_INCONCLUSIVE = 0, 1, 2, 3
#: The evaluator itself failed (a bug, never the candidate's doing): one
#: line on stderr, never a traceback, and never the code of a verdict.
EXIT_INTERNAL = 4
EXIT_CODES = {
    "qualified": EXIT_QUALIFIED,
    "rejected": EXIT_REJECTED,
    "harness-error": EXIT_HARNESS,
    "inconclusive": EXIT_INCONCLUSIVE,
    "internal-error": EXIT_INTERNAL,
}
SCHEMA_VERSION = 3
FUNCTION = worker.CANDIDATE_FUNCTION
DESCRIPTOR_FILE = f"kernels/{DESCRIPTOR.name}.py"
#: The answer, computed by the parent on pristine CPU copies.
reference = DESCRIPTOR.reference

DEFAULT_TIMEOUT_S = {"cpu": 30.0, "cuda": 180.0}  # per case, and the import
DEFAULT_DEADLINE_S = {"cpu": 300.0, "cuda": 1200.0}  # the whole run
#: Address-space cap of the candidate's process. None on a GPU: CUDA
#: reserves far more address space than it uses.
DEFAULT_MEMORY_BYTES = {"cpu": sandbox.MEMORY_BYTES_DEFAULT, "cuda": None}
MAX_TIMEOUT_S = 3600.0

#: Checks, in the order a case applies them (the first failure is reported).
CHECKS = {
    "source-gate": "the source uses only what a kernel module needs (the "
    "static gate's allow-list, checked before any of it runs), unless a "
    "reviewer who read it passed its sha256 with --reviewed",
    "completes": "the call returns: no exception, crash or hang on a supported "
    "input, within the per-case timeout and the overall deadline",
    "records-well-formed": "every file the sandboxed process writes back is "
    "in its strict format and agrees with the others",
    "grid-limits": "every launch's grid is one a GPU accepts (x up to "
    "2**31 - 1 programs, y and z up to 65535)",
    "launches-kernel": "every call on a non-empty input launches a Triton "
    "kernel defined in the candidate's file, with the output's storage among "
    "its arguments",
    "compiles-for-gpu": "every kernel the candidate launches compiles for "
    "sm_90a ahead of time (on the CPU run)",
    "output-type": "the result is a plain torch.Tensor of the inputs' shape, "
    "dtype and device",
    "output-fresh": "the result shares no memory with an input or with an "
    "earlier result",
    "output-compact": "the result's storage holds its elements and nothing "
    "more: numel x itemsize bytes, from offset 0 (no padded or hidden buffer "
    "behind it)",
    "state-unchanged": "the call leaves the process as it found it: the same "
    "number of open files and threads, autograd's mode, the RNG's state",
    "inputs-unchanged": "both inputs' storages are bit-for-bit what they were "
    "before the call, and no in-place write touched them (even one undone)",
    "values": "every element whose reference is a number matches it within "
    "the dtype's tolerance",
    "nan-mask": "every element whose reference is NaN is NaN (of any "
    "payload and sign: the contract promises a NaN, not its bits)",
    "rounding": "every bfloat16 result is the float32 sum rounded to nearest "
    "even, bit for bit, where the values check allows the interpreter one ulp",
    "deterministic": "a second call on the same inputs gives the same bits",
    "unchanged-after-return": "after the last case, every earlier result and "
    "every input still holds the bits it held when its call returned",
    "error-type": "an unsupported input raises the contract's exception type",
    "error-message": "the exception's message names the offending argument "
    "(not only through the function's signature) and shows the wrong dtype, "
    "shape or device where that is what is wrong",
    "validates-first": "no kernel is launched before the error is raised",
}
CHECK_ORDER = list(CHECKS)

#: Known places where the Triton interpreter computes something the compiled
#: kernel does not. A CPU run whose every failure one of these explains is
#: "inconclusive here", not rejected.
DIVERGENCES = {
    "interpreter-float64-to-bfloat16": {
        "triton": "3.8",
        "detail": "the Triton 3.8 interpreter casts float64 to bfloat16 "
        "wrongly (0.3945 becomes 0.0, 1.0 becomes 9.2e-41); compiled code "
        "rounds correctly",
        "source": re.compile(r"float64|fp64|tl\.double"),
        "dtypes": ("bfloat16",),
        "checks": ("values", "nan-mask", "rounding", "deterministic"),
    },
    "interpreter-bfloat16-truncation": {
        "triton": "3.8",
        "detail": "the Triton interpreter truncates float32 to bfloat16 where "
        "compiled code rounds to nearest even, and this Triton's interpreter "
        "could not be given a correct conversion, so a kernel that truncates "
        "and one that rounds give the same bits here",
        "source": re.compile(r""),
        "dtypes": ("bfloat16",),
        "checks": ("rounding",),
        # Only when the evaluator could not install the correct conversion.
        "applies": lambda: not interpreter_rounding.patchable(),
    },
}

#: What testing from outside cannot establish, however many cases it runs.
BLACK_BOX_LIMITS = [
    "a candidate that detects the evaluator (its inputs, its process, the "
    "sandbox) and behaves only while watched",
    "a candidate that turns bad after many calls, at other sizes, at a later "
    "date or on another GPU",
    "races and ordering bugs the interpreter's one-program-at-a-time run never shows",
    "claims the sandboxed process makes about itself (launches, exceptions, "
    "memory sharing): a candidate that reaches the code writing them can "
    "forge them; the static gate refuses the constructs that would, and a "
    "reviewer who overrides it takes that on",
]


#: What this run cannot establish, in every verdict (not only on the pages).
CANNOT_ESTABLISH = [
    "races and ordering between programs: the interpreter runs one program "
    "instance at a time, in order (a CPU run)",
    "speed: interpreter time says nothing about a GPU",
    "that the GPU runs this source: it compiles its own snapshot of the file; "
    "only the sha256 printed here ties the verdict to these bytes",
    "behaviour past this run: work started later than the run's deadline, "
    "after more calls than the cases make, or on inputs never tried",
    "what the candidate's process says about itself (launch records, "
    "exceptions): the static gate limits what it can reach, the bytes are "
    "judged here, but its claims stay claims",
    "that the candidate behaves the same when not evaluated: its process "
    "necessarily holds the evaluator (its modules, its frames on the call "
    "stack); the static gate refuses the introspection that would look, and "
    "a reviewer who overrides the gate takes that on",
]


def contract() -> dict:
    """What this evaluator checks, as plain data. Every verdict carries it,
    so the pages read it from the committed files and never import this
    module (a test checks the committed copy against this function)."""
    shapes, source = bench_shapes()
    case_list = [
        {
            "number": number,
            "name": case.name,
            "group": case.group,
            "kind": case.kind,
            "inputs": case.inputs,
            "catches": case.catches,
            "mode": {"cpu": case.mode_on("cpu"), "cuda": case.mode_on("cuda")},
        }
        for number, case in enumerate(cases(), start=1)
    ]
    return {
        "function": FUNCTION,
        "kernel_file": DESCRIPTOR_FILE,
        "exit_codes": dict(EXIT_CODES),
        "checks": [{"name": n, "passes_when": t} for n, t in CHECKS.items()],
        "cases": case_list,
        "interpreter_max_numel": INTERPRETER_MAX_NUMEL,
        "grid_limits": list(GRID_LIMITS),
        "bench_shapes": [list(s) for s in shapes],
        "bench_shapes_source": source,
        "bench_dtype": {
            d: str(bench_dtype(d)).removeprefix("torch.") for d in ("cpu", "cuda")
        },
        # The kernel's own figures the decision memo weighs the verdict with.
        "compare_shapes": {
            d: [DESCRIPTOR.shape_text(s) for s in DESCRIPTOR.shapes_for("compare", d)]
            for d in ("cpu", "cuda")
        },
        "max_speedup": dict(DESCRIPTOR.max_speedup),
        "divergences": {
            name: {"triton": d["triton"], "detail": d["detail"]}
            for name, d in DIVERGENCES.items()
        },
        "black_box_limits": list(BLACK_BOX_LIMITS),
        "defaults": {
            "case_timeout_s": dict(DEFAULT_TIMEOUT_S),
            "deadline_s": dict(DEFAULT_DEADLINE_S),
            "memory_bytes": dict(DEFAULT_MEMORY_BYTES),
        },
        "review_constructs": review.construct_names(),
        "gate_rules": gate_rules(),
        "cannot_establish": list(CANNOT_ESTABLISH),
        # The descriptor's own serialisation (the one results/kernels.json has).
        "goals": DESCRIPTOR.catalog_entry()["goals"],
    }
