"""A race between two programs of one launch (``races.py`` finds it in the
interpreter, ``scripts/practice_web/races.py`` on the page's subset) as the
one problem sentence both graders print. Standard library only: the page's
grader imports it in the reader's browser.

The race is the dict of ``races.Race.to_dict``: the kernel, the two programs
(earlier, later), what each did ("load", "store" or "atomic") and the
element it met on.
"""

from __future__ import annotations

from scripts.qualify.review import clip

RACE_VERBS = {"load": "loads", "store": "stores", "atomic": "updates atomically"}


def race_problem(race: dict) -> str:
    """The race a call's launch showed, with the two programs and the
    element, in one sentence."""
    first, second = (", ".join(str(i) for i in p[:3]) for p in race["programs"][:2])
    verbs = [RACE_VERBS.get(k, "reaches") for k in race["kinds"][:2]]
    verbs += ["reaches"] * (2 - len(verbs))
    where = clip(race["tensor"], 60) or "an address in no argument"
    if race["element"] >= 0:
        where = f"element {race['element']} of {where}"
    return (
        f"a race in {clip(race['kernel'], 60)}: program ({second}) "
        f"{verbs[1]} {where}, which program ({first}) {verbs[0]}, and no "
        "atomic orders the two"
    )
