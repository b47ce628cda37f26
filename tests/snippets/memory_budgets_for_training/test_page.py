"""The Foundations pages type no number: every figure comes from code.

Strips what may hold digits (front matter, code, placeholders, link
targets, footnote markers) and looks for digits in what is left. The other
Foundations page tests import `stray_numbers` from here.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "foundations" / "memory-budgets-for-training.md"

# Names, versions and citation details, not quantities to recompute.
NAMES = {
    "Llama-3",
    "8B",
    "70B",
    "bf16",
    "fp32",
    "fp8",
    "16-bit",
    "H200",
    "H100",
    "ZeRO-1",
    "ZeRO-2",
    "ZeRO-3",
    "SC",
    "2020",
    "2023",
    "2009",
    "1967",
    "1910.02054",
    "2205.05198",
    "2205.14135",
    "2305.13245",
    "2211.05102",
    "2001.08361",
    "2204.02311",
    "2407.21783",
    "2.1",
}

FENCE = re.compile(r"^(\s*)(`{3,}).*?^\1\2\s*$", re.MULTILINE | re.DOTALL)
STRIPPED = [
    re.compile(r"\A---\n.*?\n---\n", re.DOTALL),
    re.compile(r"<!--.*?-->", re.DOTALL),
    re.compile(r"`[^`\n]+`"),
    re.compile(r"\]\([^)]*\)"),
    re.compile(r"\[\^[\w-]+\]"),
    re.compile(r'"[^"\n]+"'),  # quoted titles of cited works
    re.compile(r"^\s*\d+\.\s", re.MULTILINE),
    re.compile(r"^\*\*\d+\.", re.MULTILINE),  # bold exercise numbers
]
TOKEN = re.compile(r"[\w.:()-]*\d[\w.:()-]*")


def stray_numbers(markdown: str) -> list[str]:
    text = FENCE.sub("", markdown)
    for pattern in STRIPPED:
        text = pattern.sub(" ", text)
    tokens = (token.strip(".,:;-()") for token in TOKEN.findall(text))
    return [token for token in tokens if token and token not in NAMES]


def check_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert stray_numbers(text) == []
    assert text.count('??? success "Answer"') >= 5
    assert "<!-- run: snippets/" in text
    assert "<!-- diagram: snippets/" in text or "from-trace" in page.name
    assert "\n## Read next\n" in text and "[^" in text


def test_the_page_follows_the_pattern():
    check_page(PAGE)
    text = PAGE.read_text(encoding="utf-8")
    assert "<!-- calculator: snippets/lib/training_memory/budget.py:" in text
    assert "<!-- predict: snippets/lib/training_memory/" in text


def test_the_check_catches_a_typed_number():
    assert stray_numbers("---\naccess: free\n---\nIt needs 128 GB.\n") == ["128"]
