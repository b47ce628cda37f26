"""The strict build passes without importing torch or Triton, and fails
loudly, naming what is wrong, when a page includes a missing snippet, lacks its
access level or mistitles a code block."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.site.sitebuild import (
    REPOSITORY,
    ROOT,
    imported_by,
    run_build,
    variant_config,
)

LESSON = "kernels/where-time-goes/connect-kernel-work-to-the-service"
GOOD_INCLUDE = "snippets/lib/amdahl.py"


def page(body: str, access: str | None = "free") -> str:
    front = f"---\naccess: {access}\n---\n\n" if access else ""
    return f"{front}# A test page\n\n{body}\n"


def fence(target: str, title: str | None = None) -> str:
    title = title if title is not None else target.split(":")[0]
    return f'```python title="{title}"\n--8<-- "{target}"\n```\n'


def build_variant(tmp_path, body: str, access: str | None = "free"):
    config = variant_config(tmp_path, {"index.md": page(body, access)})
    return run_build(config, tmp_path / "site")


def test_real_site_builds_strictly(site_build):
    # The fixture fails the test if the build did, and says "hung" past its
    # guard (tests/site/sitebuild.py); how fast it builds is the speed
    # benchmark's to say (make bench-site), never a test's.
    site, _ = site_build
    assert (site / LESSON / "index.html").is_file()


@pytest.mark.parametrize("package", ["torch", "triton"])
def test_the_build_imports_neither_torch_nor_triton(site_build, package):
    # Pages read data files; a build-time function that imports torch costs
    # every build seconds and ties the site to a kernel toolchain.
    _, result = site_build
    assert "import time:" in result.stderr, "no -X importtime report"
    chains = imported_by(result.stderr, package)
    assert not chains, f"the build imported {package}: " + "; ".join(chains)


def test_the_import_check_names_a_page_module_that_imports_torch(tmp_path):
    # A kernel module imports torch and Triton; the build fails on the missing
    # function only after importing the module.
    body = "<!-- insert: kernels/residual_add_relu.py:no_such_function() -->"
    config = variant_config(tmp_path, {"index.md": page(body)})
    result = run_build(config, tmp_path / "site", importtime=True)
    for package in ("torch", "triton"):
        chains = imported_by(result.stderr, package)
        assert chains == [f"{package} <- kernels.residual_add_relu"], chains


def test_the_import_check_names_the_importer():
    report = "\n".join(
        [
            "import time: self [us] | cumulative | imported package",
            "import time:      5 |          5 |     torch._C",
            "import time:     10 |         15 |   torch",
            "import time:      3 |         18 | snippets.contract",
            "import time:      1 |          1 | torchvision_like",
        ]
    )
    assert imported_by(report, "torch") == ["torch <- snippets.contract"]
    assert imported_by(report, "triton") == []


SHOWN_AS_CODE = f"<!-- insert: {GOOD_INCLUDE}:no_such_function() -->"


@pytest.fixture(scope="module")
def good_variant(tmp_path_factory) -> str:
    """One variant site for the checks that must build: a real snippet, and
    a broken insert shown as code (one build instead of two)."""
    tmp_path = tmp_path_factory.mktemp("good-variant")
    body = (
        fence(f"{GOOD_INCLUDE}:overall-speedup")
        + f"\nInline: `{SHOWN_AS_CODE}`\n\n```markdown\n{SHOWN_AS_CODE}\n```\n"
    )
    result = build_variant(tmp_path, body)
    assert result.returncode == 0, result.stderr[-3000:]
    return (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_variant_with_a_real_snippet_builds(good_variant):
    assert "overall_speedup" in good_variant
    assert "src/snippets/lib/amdahl.py" in good_variant


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


def test_inserts_shown_as_code_are_left_alone(good_variant):
    # The build succeeded although the shown insert names no function.
    assert "no_such_function" in good_variant


def test_every_page_links_to_its_own_source(site_build):
    # "Edit this page" on every page, to the Markdown file it was built from,
    # in the repository the Pages workflow names (REPOSITORY stands in for it).
    site, _ = site_build
    edit = REPOSITORY["SITE_EDIT_URI"]
    missing = []
    for html in sorted(site.rglob("index.html")):
        folder = html.parent.relative_to(site).as_posix()
        sources = (
            [f"{folder}{suffix}" for suffix in (".md", "/index.md", ".ipynb")]
            if folder != "."
            else ["index.md"]
        )
        source = next((s for s in sources if (ROOT / "docs" / s).is_file()), None)
        text = html.read_text(encoding="utf-8")
        if (
            source is None
            or f'href="{edit}{source}" title="Edit this page"' not in text
        ):
            missing.append(folder)
    assert not missing, f"pages without an edit link to their source: {missing}"


def test_the_pages_workflow_passes_the_repository_it_runs_in():
    # The published site's links point where the workflow runs: the address
    # comes from GitHub's own context, never typed, and the branch is the one
    # that triggers the build.
    workflow = yaml.safe_load((ROOT / ".github/workflows/pages.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    build = next(s for s in steps if "properdocs build" in s.get("run", ""))
    assert build["env"]["SITE_EDIT_URI"] == (
        "${{ github.server_url }}/${{ github.repository }}/edit/"
        "${{ github.ref_name }}/docs/"
    )
    # yaml reads the key `on` as True.
    assert workflow[True]["push"]["branches"] == ["main"]
    config = _mkdocs_config()
    assert "content.action.edit" in config["theme"]["features"]
    # With a repo_url, Material's header fetches star counts from
    # api.github.com: a request off the site's host (the browser test's rule).
    assert "repo_url" not in config


def _mkdocs_config() -> dict:
    """mkdocs.yml with its tags (!ENV, !!python/name) read as plain values."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, tag, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *_: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)


def test_every_page_links_to_the_repository_in_its_footer(site_build):
    # A plain link derived from SITE_EDIT_URI (scripts/site/repository.py),
    # and the clone command on "How to run the code" points at it too.
    site, _ = site_build
    repository = REPOSITORY["SITE_EDIT_URI"].split("/edit/")[0]
    missing = [
        html.parent.relative_to(site).as_posix()
        for html in sorted(site.rglob("index.html"))
        if 'site-repository">' not in (text := html.read_text(encoding="utf-8"))
        or f'<a href="{repository}">' not in text
    ]
    assert not missing, f"pages without the repository link: {missing}"
    setup = (site / "reference/how-to-run-the-code/index.html").read_text()
    assert f"git clone {repository}.git" in re.sub(r"<[^>]+>", "", setup)
