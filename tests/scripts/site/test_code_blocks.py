"""scripts/site/code_blocks.py: titles name the included file, and become
links to the whole tested file."""

import pytest
from properdocs.exceptions import PluginError

from scripts.site.code_blocks import annotate_code_blocks, link_code_titles

AMDAHL = "snippets/lib/amdahl.py"


def test_an_include_titled_with_another_file_is_refused():
    page = f'```python title="snippets/x.py"\n--8<-- "{AMDAHL}:body"\n```'
    with pytest.raises(PluginError, match="must be titled with that one file"):
        annotate_code_blocks(page, "a.md")


def test_a_title_naming_a_project_file_links_to_it():
    html = f'<span class="filename">{AMDAHL} (excerpt)</span>'
    linked = link_code_titles(html, "kernels/lesson/")
    assert f'href="../../src/{AMDAHL}"' in linked
    other = '<span class="filename">not/a/project/file.py</span>'
    assert link_code_titles(other, "x/") == other
