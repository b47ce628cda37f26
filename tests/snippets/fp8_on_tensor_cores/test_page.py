"""The FP8 page types no number and follows the lesson pattern."""

from pathlib import Path

from tests.snippets.memory_budgets_for_training.test_page import NAMES, stray_numbers

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "kernels" / "matrix-multiplication" / "fp8-on-tensor-cores.md"
# Names, versions and citation details, not quantities.
OURS = {"FP8", "e4m3", "e5m2", "E4M3", "E5M2", "OFP8", "8-bit", "1.0", "3.8", "H800"}
OURS |= {"2209.05433", "2412.19437", "DeepSeek-V3", "f32", "f16", "float8e4nv"}
OURS |= {"float8_e4m3fn", "float8_e5m2", "__nv_fp8_e4m3", "__nv_fp8_e5m2"}
OURS |= {"float64", "float32", "float8", "BF16", "sm_90a"}


def stray(text: str) -> list[str]:
    return [t for t in stray_numbers(text) if t not in OURS and t not in NAMES]


def test_the_page_types_no_number_and_follows_the_pattern():
    text = PAGE.read_text(encoding="utf-8")
    assert stray(text) == []
    assert text.count('??? success "Answer"') >= 2
    assert "<!-- run: snippets/" in text and "<!-- diagram: snippets/" in text
    assert "\n## Read next\n" in text and "<!-- badge: " in text


def test_a_typed_number_is_caught():
    assert stray("---\naccess: free\n---\nFP8 doubles it to 412 FLOP/byte.\n") == [
        "412"
    ]
