"""The checks, one object each, in one registry (``CHECKS``), in the order a
case applies them: the first failing one is the verdict's. Each names what
a pass establishes and what it cannot; the corpus candidate that only it
catches is the task's (a task's ``only_catches``, beside its corpus), and
``tests/scripts/qualify/test_checks.py`` holds each to the committed kill
matrix, so a check that could be removed without losing a catch shows. The
contract every verdict carries is built from this registry
(``contract.contract``), and the pages' check table from that.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    passes_when: str  # what a pass establishes
    cannot: str  # what a pass does not establish

    def to_dict(self, only_catches: str | None) -> dict:
        """As the contract lists it, with the task's candidate that only
        this check catches."""
        return {
            "name": self.name,
            "passes_when": self.passes_when,
            "cannot": self.cannot,
            "only_catches": only_catches,
        }


CHECKS: tuple[Check, ...] = (
    Check(
        "source-gate",
        "the source uses only what a kernel module needs (the static gate's "
        "allow-list, checked before any of it runs), unless a reviewer who "
        "read it passed its sha256 with --reviewed",
        "that allowed constructs are used honestly: an allow-list limits what "
        "the source can reach, not what it computes",
    ),
    Check(
        "completes",
        "the call returns: no exception, crash or hang on a supported input, "
        "within the per-case timeout and the overall deadline",
        "that it returns on inputs never tried, or in time on a GPU",
    ),
    Check(
        "records-well-formed",
        "every file the sandboxed process writes back is in its strict format "
        "and agrees with the others",
        "that a well-formed claim is true: the files' claims stay claims",
    ),
    Check(
        "grid-limits",
        "every launch's grid is one a GPU accepts (x up to 2**31 - 1 "
        "programs, y and z up to 65535)",
        "that the grid fits at sizes the cases never reach",
    ),
    Check(
        "launches-kernel",
        "every call on a non-empty input launches a Triton kernel defined in "
        "the candidate's file, with the output's storage among its arguments",
        "that the kernel computes the result: only that one ran and was "
        "handed the output",
    ),
    Check(
        "compiles-for-gpu",
        "every kernel the candidate launches compiles for sm_90a ahead of "
        "time (on the CPU run)",
        "that the compiled code computes what the interpreter did",
    ),
    Check(
        "output-type",
        "the result is a plain torch.Tensor of the inputs' shape, dtype and device",
        "anything about its values",
    ),
    Check(
        "output-fresh",
        "the result shares no memory with an input or with an earlier result",
        "that memory it shares with nothing the evaluator holds stays private",
    ),
    Check(
        "output-compact",
        "the result's storage holds its elements and nothing more: numel x "
        "itemsize bytes, from offset 0 (no padded or hidden buffer behind it)",
        "that the kernel wrote nothing past its storage (a store out of "
        "bounds is seen only where it lands in something checked)",
    ),
    Check(
        "state-unchanged",
        "the call leaves the process as it found it: the same number of open "
        "files and threads, autograd's mode, the RNG's state",
        "state outside the process, or state these four readings miss",
    ),
    Check(
        "inputs-unchanged",
        "both inputs' storages are bit-for-bit what they were before the "
        "call, and no in-place write touched them (even one undone)",
        "that a GPU run leaves them alone: there the inputs are writable "
        "copies, judged from their bytes after the call",
    ),
    Check(
        "values",
        "every element whose reference is a number matches it within the "
        "dtype's tolerance",
        "values on inputs never tried, or computed by a GPU's compiled code",
    ),
    Check(
        "nan-mask",
        "every element whose reference is NaN is NaN (of any payload and "
        "sign: the contract promises a NaN, not its bits)",
        "which NaN it is: payloads and signs are not compared",
    ),
    Check(
        "rounding",
        "every bfloat16 result is the float32 sum rounded to nearest even, "
        "bit for bit, where the values check allows the interpreter one ulp",
        "the rounding of the float16 and float32 results, which the values "
        "check judges within its tolerance",
    ),
    Check(
        "deterministic",
        "a second call on the same inputs gives the same bits",
        "determinism on a GPU, where programs run at once and atomics "
        "reorder: the interpreter runs them one at a time",
    ),
    Check(
        "race-free",
        "no two programs of one launch reach the same address, one of them "
        "with a plain store, unless an atomic's acquire and release order "
        "them (seen from every access the interpreter ran)",
        "the order of programs on a GPU: the interpreter runs them one after "
        "another, so a wait the flag already satisfied is ordered here, and "
        "addresses no case reaches are never compared",
    ),
    Check(
        "unchanged-after-return",
        "after the last case, every earlier result and every input still "
        "holds the bits it held when its call returned",
        "writes that start after the run's last case",
    ),
    Check(
        "error-type",
        "an unsupported input raises the contract's exception type",
        "that inputs outside the unsupported cases are refused",
    ),
    Check(
        "error-message",
        "the exception's message names the offending argument (not only "
        "through the function's signature) and shows the wrong dtype, shape "
        "or device where that is what is wrong",
        "that the message is helpful beyond naming what is wrong",
    ),
    Check(
        "validates-first",
        "no kernel is launched before the error is raised",
        "that nothing else (an allocation, a copy) happens first",
    ),
)

CHECK_ORDER: list[str] = [check.name for check in CHECKS]
BY_NAME: dict[str, Check] = {check.name: check for check in CHECKS}
