"""The evaluator's contract as data: the exit codes and limits, the
interpreter divergences it knows, what no black-box run can show, and
``contract(task)``, the plain record every verdict carries (used by
``scripts/qualify/evaluator.py``; the pages read the committed copy, never
this module). The checks are ``scripts/qualify/checks.py``'s registry.

The kernel's own facts (its reference, goals and shapes) come from the
task's descriptor (``scripts/qualify/task.py``), serialised by the
descriptor itself, so nothing here retypes them.
"""

from __future__ import annotations

import re

from kernels.launches import GRID_LIMITS
from scripts.qualify import interpreter_rounding, review, sandbox
from scripts.qualify.cases import INTERPRETER_MAX_NUMEL, cases
from scripts.qualify.checks import CHECKS
from scripts.qualify.gate import gate_rules
from scripts.qualify.task import Task, bench_dtype, bench_shapes, of_family

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

DEFAULT_TIMEOUT_S = {"cpu": 30.0, "cuda": 180.0}  # per case, and the import
DEFAULT_DEADLINE_S = {"cpu": 300.0, "cuda": 1200.0}  # the whole run
#: Address-space cap of the candidate's process. None on a GPU: CUDA
#: reserves far more address space than it uses.
DEFAULT_MEMORY_BYTES = {"cpu": sandbox.MEMORY_BYTES_DEFAULT, "cuda": None}
MAX_TIMEOUT_S = 3600.0

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
    "races and ordering bugs in another order of programs than the "
    "interpreter's one at a time (the race check judges that one order)",
    "claims the sandboxed process makes about itself (launches, exceptions, "
    "memory sharing): a candidate that reaches the code writing them can "
    "forge them; the static gate refuses the constructs that would, and a "
    "reviewer who overrides it takes that on",
]


#: What this run cannot establish, in every verdict (not only on the pages).
CANNOT_ESTABLISH = [
    "races in another order of programs: the interpreter runs one program "
    "instance at a time, in order, and the race check judges that order "
    "(a CPU run)",
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


def contract(task: Task | None = None) -> dict:
    """What this evaluator checks for `task`, as plain data. Every verdict
    carries it, so the pages read it from the committed files and never
    import this module (a test checks the committed copy against this
    function)."""
    task = task or of_family("elementwise-binary")
    descriptor = task.descriptor_object
    shapes, source = bench_shapes(task)
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
        for number, case in enumerate(cases(task), start=1)
    ]
    return {
        "function": task.function,
        "kernel_file": task.kernel_file,
        "exit_codes": dict(EXIT_CODES),
        "checks": [c.to_dict(task.only_catches.get(c.name)) for c in CHECKS],
        "cases": case_list,
        "interpreter_max_numel": INTERPRETER_MAX_NUMEL,
        "grid_limits": list(GRID_LIMITS),
        "bench_shapes": [list(s) for s in shapes],
        "bench_shapes_source": source,
        "bench_dtype": {
            d: str(bench_dtype(d, task)).removeprefix("torch.") for d in ("cpu", "cuda")
        },
        # The kernel's own figures the decision memo weighs the verdict with.
        "compare_shapes": {
            d: [descriptor.shape_text(s) for s in descriptor.shapes_for("compare", d)]
            for d in ("cpu", "cuda")
        },
        "max_speedup": dict(descriptor.max_speedup),
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
        "goals": descriptor.catalog_entry()["goals"],
    }
