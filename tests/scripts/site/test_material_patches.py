"""scripts/site/material_patches.py: each patch applies once, twice changes
nothing, and a bundle without the line fails naming the patch."""

from __future__ import annotations

import pytest

from scripts.site.material_patches import PATCHES, BundleChanged, patch, patch_all


def fake_site(tmp_path, text_for):
    scripts = tmp_path / "assets" / "javascripts"
    (scripts / "workers").mkdir(parents=True)
    (scripts / "bundle.abc.min.js").write_text(f"x;{text_for('port')};y")
    (scripts / "workers" / "search.def.min.js").write_text(
        f"x;{text_for('query separator')};y"
    )
    return tmp_path


def test_each_patch_replaces_its_line_once_and_is_idempotent(tmp_path):
    site = fake_site(tmp_path, lambda name: PATCHES[name][1])
    first = [p.read_text() for p in patch_all(site)]
    again = [p.read_text() for p in patch_all(site)]
    assert first == again
    for text, (_, _before, after) in zip(first, PATCHES.values(), strict=True):
        assert after in text and text.count(after) == 1


def test_a_changed_material_fails_naming_the_patch(tmp_path):
    site = fake_site(tmp_path, lambda name: "something else")
    with pytest.raises(BundleChanged, match="port patch"):
        patch(site, "port")


def test_the_real_material_still_holds_both_lines():
    from pathlib import Path

    import material

    theme = Path(material.__file__).parent / "templates"
    for name in PATCHES:
        patch_target = PATCHES[name]
        files = list((theme / "assets" / "javascripts").glob(patch_target[0]))
        assert len(files) == 1, name
        assert files[0].read_text(encoding="utf-8").count(patch_target[1]) == 1, name
