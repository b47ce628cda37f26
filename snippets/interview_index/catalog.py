"""The interview exercises as data (docs/interview/index.md): each page under
docs/interview/ declares its level, time budget and area in its front matter
(`interview:`), and the index's table, each page's card and the sample loops
are computed from those declarations, so a time budget is written once."""

from pathlib import Path

import yaml

from evidence.tables import markdown_table

PAGES = Path(__file__).resolve().parents[2] / "docs" / "interview"
LEVELS = {"screen": "Screen", "onsite": "Onsite", "deep-dive": "Deep dive"}
AREAS = {"kernels": "Kernels", "systems": "Systems", "correctness": "Correctness"}
INTRO_MINUTES = 5  # introductions, and how the loop will run
CLOSE_MINUTES = 5  # the candidate's own questions

# Three 45-minute loops a hiring manager can run as they stand.
LOOPS = {
    "kernel": (True, ["fix-int32-offset-overflow", "row-softmax"], False),
    "systems": (True, ["amdahl-on-a-step", "training-memory"], True),
    "deep": (True, ["partial-wave-gemm"], False),
}


def front_matter(text: str, name: str) -> dict:
    if not text.startswith("---\n"):
        raise ValueError(f"docs/interview/{name}.md: no front matter")
    head = text[4:].split("\n---\n", 1)[0]
    return yaml.safe_load(head) or {}


def read_exercise(path: Path) -> dict:
    """One page's declaration, checked: a level, whole minutes, an area."""
    name = path.stem
    text = path.read_text(encoding="utf-8")
    meta = front_matter(text, name).get("interview")
    if not isinstance(meta, dict):
        raise ValueError(f"docs/interview/{name}.md: no 'interview:' front matter")
    level, minutes, area = meta.get("level"), meta.get("minutes"), meta.get("area")
    if level not in LEVELS:
        raise ValueError(f"{name}: level must be one of {list(LEVELS)}, got {level!r}")
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes <= 0:
        raise ValueError(f"{name}: minutes must be a positive whole number")
    if area not in AREAS:
        raise ValueError(f"{name}: area must be one of {list(AREAS)}, got {area!r}")
    title = next(
        (line[2:].strip() for line in text.splitlines() if line.startswith("# ")), name
    )
    return {
        "name": name,
        "title": title,
        "level": level,
        "minutes": minutes,
        "area": area,
        "graded": meta.get("graded"),
    }


def exercises(folder: Path = PAGES) -> list[dict]:
    """Every exercise page, by level, then time, then name."""
    found = [read_exercise(p) for p in sorted(folder.glob("*.md")) if p.stem != "index"]
    order = list(LEVELS)
    return sorted(
        found, key=lambda e: (order.index(e["level"]), e["minutes"], e["name"])
    )


def by_name(folder: Path = PAGES) -> dict[str, dict]:
    return {e["name"]: e for e in exercises(folder)}


def card(name: str) -> str:
    """The line under each exercise's title: level, time, area, grader."""
    e = by_name()[name]
    text = (
        f"**{LEVELS[e['level']]} · {e['minutes']} minutes · {AREAS[e['area']]}.** "
        "An engineering exercise written for this site, not a question reported "
        "from any employer."
    )
    if e["graded"]:
        text += f" The kernel is graded by the practice grader (`{e['graded']}`)."
    return text


def exercise_table() -> str:
    rows = [
        (
            LEVELS[e["level"]],
            f"[{e['title']}]({e['name']}.md)",
            f"{e['minutes']} min",
            AREAS[e["area"]],
            f"`{e['graded']}`" if e["graded"] else "on paper",
        )
        for e in exercises()
    ]
    header = ["Level", "Exercise", "Time", "Area", "Graded by"]
    return markdown_table(header, rows, "lllll", escape=False) + "\n"


def loop_minutes(loop: str) -> int:
    intro, names, close = LOOPS[loop]
    pages = by_name()
    return (
        (INTRO_MINUTES if intro else 0)
        + sum(pages[n]["minutes"] for n in names)
        + (CLOSE_MINUTES if close else 0)
    )


def facts() -> dict[str, str]:
    found = exercises()
    out = {
        "count": str(len(found)),
        "graded": str(sum(1 for e in found if e["graded"])),
        "intro": f"{INTRO_MINUTES} minutes",
        "close": f"{CLOSE_MINUTES} minutes",
    }
    for level in LEVELS:
        minutes = [e["minutes"] for e in found if e["level"] == level]
        out[f"{level}.count"] = str(len(minutes))
        low, high = min(minutes), max(minutes)
        out[f"{level}.minutes"] = (
            f"{low} minutes" if low == high else f"{low}–{high} minutes"
        )
    for area in AREAS:
        out[f"{area}.count"] = str(sum(1 for e in found if e["area"] == area))
    for loop in LOOPS:
        out[f"loop.{loop}"] = f"{loop_minutes(loop)} minutes"
    return out


if __name__ == "__main__":
    for e in exercises():
        print(f"{LEVELS[e['level']]:>9} {e['minutes']:>3} min  {e['name']}")
