"""The capstone's rubric: what a reviewer scores, and the checker's share
(docs/kernels/to-the-service/capstone-decision-memo.md)."""

from __future__ import annotations

from snippets.capstone_decision_memo.check_memo import PARTS

#: criterion -> what earns it; the checker verifies only that each part exists.
RUBRIC = {
    "scope": "the input domain matches the contract the tests enforce",
    "identity": "hashes let a reviewer rebuild exactly what was measured",
    "correctness": "a verdict file, its status, and what it does not establish",
    "timing": "timer, flush, warm-up, rounds and first call stated",
    "results": "medians with spread, per shape, against eager and compiled",
    "reversal": "a measurable condition, not a hedge",
    "ownership": "who re-qualifies it, on which upgrades, and the fallback",
}


def rubric_table() -> str:
    from evidence.tables import markdown_table

    return markdown_table(["criterion", "earns it"], list(RUBRIC.items()))


def fmt_parts() -> str:
    return ", ".join(PARTS)


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "parts": fmt_parts(),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    print(f"{len(RUBRIC)} criteria; checker parts: {fmt_parts()}")
