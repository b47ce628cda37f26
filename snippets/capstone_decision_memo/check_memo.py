"""Check a kernel decision memo for its required parts
(docs/kernels/to-the-service/capstone-decision-memo.md).

    python -m snippets.capstone_decision_memo.check_memo my-memo.md

Exits 0 and prints "ok" when every part is there; otherwise exits 1 and
prints one line per missing part, naming it. Standard library only. The
memo is Markdown: each part is a heading (any level) whose words match, and
some parts must also hold a piece of evidence under their heading.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# --8<-- [start:parts]
#: part -> (heading pattern, evidence pattern or None, what the evidence is)
PARTS = {
    "recommendation": (r"^recommend", None, ""),
    "input domain": (r"input domain|inputs? covered", None, ""),
    "artifact identity": (
        r"identity",
        r"\b[0-9a-f]{12,64}\b",
        "a source or binary hash (hex digest)",
    ),
    "correctness evidence": (
        r"correctness",
        r"[\w./-]+\.json",
        "the verdict file it rests on (a .json path)",
    ),
    "timing boundary": (
        r"timing boundary|what was timed",
        r"(?i)event|perf_counter|timer|timed",
        "the timer and what it brackets",
    ),
    "result by shape": (
        r"result|by shape",
        r"^\s*\|.*\d.*\|\s*$",
        "a table with a row per shape",
    ),
    "what would reverse it": (r"revers", None, ""),
    "maintenance or deployment": (r"maintenance|deploy", None, ""),
}
# --8<-- [end:parts]

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{[^}]*\})?\s*$", re.MULTILINE)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def sections(markdown: str) -> list[tuple[str, str]]:
    """(heading text, body up to the next heading) for every heading."""
    text = COMMENT.sub("", markdown)
    found = list(HEADING.finditer(text))
    return [
        (m[2], text[m.end() : found[i + 1].start() if i + 1 < len(found) else None])
        for i, m in enumerate(found)
    ]


# --8<-- [start:check]
def check_memo(markdown: str) -> list[str]:
    """One problem per missing or empty part; [] when the memo passes."""
    problems = []
    secs = sections(markdown)
    for part, (heading, evidence, what) in PARTS.items():
        matches = [body for title, body in secs if re.search(heading, title, re.I)]
        if not matches:
            problems.append(f"missing part: {part} (no heading matching {heading!r})")
        elif not any(body.strip() for body in matches):
            problems.append(f"empty part: {part}")
        elif evidence and not any(
            re.search(evidence, body, re.MULTILINE) for body in matches
        ):
            problems.append(f"part {part} lacks {what}")
    return problems


# --8<-- [end:check]


TEMPLATE = """\
# Decision memo: <kernel>

## Recommendation
<Adopt / keep the baseline / not yet, in one sentence, and why.>

## Input domain
<Shapes, dtypes, layouts, devices covered; what raises an error.>

## Artifact identity
<Kernel source sha256, compiled artifact hash, Triton/PyTorch versions.>

## Correctness evidence
<The verdict file (results/qualify/<kernel>.<device>.json), its status,
what it does not establish.>

## Timing boundary
<Timer (CUDA events or host perf_counter), what each sample brackets,
flush, warm-up, rounds, first call apart.>

## Result by shape
| shape | baseline median | custom median | spread |
| --- | --- | --- | --- |

## What would reverse the recommendation
<The measurement or change that would flip it.>

## Maintenance and deployment
<Who re-qualifies it, on which upgrades; how it ships and falls back.>
"""


def template_block() -> str:
    """The template as a Markdown code block for the page."""
    return f"```markdown\n{TEMPLATE}```"


def exercise_answer(which: str) -> str:
    """What the checker prints for the two exercises' broken memos."""
    memo = TEMPLATE.replace("<Kernel source sha256", "18f82ee9eb648647 <")
    memo = memo.replace("| --- | --- | --- | --- |", "| 3×1031 | 5.3 | 4.1 | 0.4 |")
    memo = memo.replace("(results/qualify/<kernel>.<device>.json)", "verdict.json")
    if which == "correctness":
        memo = memo.replace("verdict.json", "all tests pass")
    elif which == "results":
        memo = memo.replace(
            "| 3×1031 | 5.3 | 4.1 | 0.4 |", "the custom kernel is faster"
        )
    else:
        raise KeyError(which)
    return "The checker prints: " + "; ".join(f"`{p}`" for p in check_memo(memo))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m snippets.capstone_decision_memo.check_memo MEMO.md")
        return 2
    problems = check_memo(Path(argv[0]).read_text(encoding="utf-8"))
    for problem in problems:
        print(problem)
    if not problems:
        print("ok: every required part is there")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(main(sys.argv[1:]))
    # No file given: check the empty template, which must fail.
    for line in check_memo(TEMPLATE):
        print(line)
