"""The strict build passes, and fails loudly, naming what is wrong, when a page
includes a missing snippet, lacks its access level or mistitles a code block."""

from __future__ import annotations

import time

import pytest
from sitebuild import ROOT, run_mkdocs_build, variant_config

LESSON = "kernels/where-time-goes/connect-kernel-work-to-the-service"
GOOD_INCLUDE = "snippets/connect_kernel_work_to_the_service/amdahl.py"


def page(body: str, access: str | None = "free") -> str:
    front = f"---\naccess: {access}\n---\n\n" if access else ""
    return f"{front}# A test page\n\n{body}\n"


def fence(target: str, title: str | None = None) -> str:
    title = title if title is not None else target.split(":")[0]
    return f'```python title="{title}"\n--8<-- "{target}"\n```\n'


def build_variant(tmp_path, body: str, access: str | None = "free"):
    config = variant_config(tmp_path, {"index.md": page(body, access)})
    return run_mkdocs_build(config, tmp_path / "site")


def test_real_site_builds_strictly_and_fast(tmp_path):
    started = time.perf_counter()
    result = run_mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr[-4000:]
    # The budget is 10 s on 2 cores; the margin absorbs a busy worker.
    assert elapsed < 20, f"site build took {elapsed:.1f} s"
    assert (tmp_path / "site" / LESSON / "index.html").is_file()


def test_variant_with_a_real_snippet_builds(tmp_path):
    result = build_variant(tmp_path, fence(f"{GOOD_INCLUDE}:overall-speedup"))
    assert result.returncode == 0, result.stderr[-3000:]
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "overall_speedup" in html
    assert "src/snippets/connect_kernel_work_to_the_service/amdahl.py" in html


def test_missing_snippet_file_fails_naming_page_and_file(tmp_path):
    result = build_variant(tmp_path, fence("snippets/no_such_file.py:body"))
    assert result.returncode != 0
    assert "index.md" in result.stderr
    assert "snippets/no_such_file.py" in result.stderr


def test_missing_snippet_section_fails_naming_page_and_section(tmp_path):
    result = build_variant(tmp_path, fence(f"{GOOD_INCLUDE}:no-such-section"))
    assert result.returncode != 0
    assert "index.md" in result.stderr
    assert "no-such-section" in result.stderr


@pytest.mark.parametrize("access", [None, "paid"], ids=["absent", "invalid"])
def test_page_without_a_valid_access_level_fails_naming_it(tmp_path, access):
    result = build_variant(tmp_path, "Some text.", access=access)
    assert result.returncode != 0
    assert "index.md" in result.stderr
    assert "access" in result.stderr


def test_code_block_titled_with_another_file_fails(tmp_path):
    body = fence(f"{GOOD_INCLUDE}:overall-speedup", title="snippets/other.py")
    result = build_variant(tmp_path, body)
    assert result.returncode != 0
    assert "must be titled" in result.stderr
    assert GOOD_INCLUDE in result.stderr


def test_failing_insert_names_page_and_placeholder(tmp_path):
    body = f"Value: <!-- insert: {GOOD_INCLUDE}:no_such_function() -->"
    result = build_variant(tmp_path, body)
    assert result.returncode != 0
    assert "index.md" in result.stderr
    assert "no_such_function" in result.stderr


def test_inserts_shown_as_code_are_left_alone(tmp_path):
    example = f"<!-- insert: {GOOD_INCLUDE}:no_such_function() -->"
    body = f"Inline: `{example}`\n\n```markdown\n{example}\n```\n"
    result = build_variant(tmp_path, body)
    assert result.returncode == 0, result.stderr[-3000:]
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "no_such_function" in html
