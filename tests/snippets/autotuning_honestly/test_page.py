"""The autotuning page types no number and follows the lesson pattern."""

from pathlib import Path

from tests.snippets.memory_budgets_for_training.test_page import NAMES, stray_numbers

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "kernels" / "to-the-service" / "autotuning-honestly.md"
OURS = {"3.8", "L2", "float32"}  # a version, a cache's name, a dtype


def stray(text: str) -> list[str]:
    return [t for t in stray_numbers(text) if t not in OURS and t not in NAMES]


def test_the_page_types_no_number_and_follows_the_pattern():
    text = PAGE.read_text(encoding="utf-8")
    assert stray(text) == []
    assert text.count('??? success "Answer"') >= 2
    assert "<!-- run: snippets/" in text and "<!-- diagram: snippets/" in text
    assert "\n## Read next\n" in text and "<!-- badge: " in text


def test_a_typed_number_is_caught():
    assert stray("---\naccess: free\n---\nThe first call took 80 s.\n") == ["80"]
