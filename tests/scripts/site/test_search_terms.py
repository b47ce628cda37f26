"""scripts/site/search_terms.py: spelling variants, hyphenated words and
page weights for Material's search index."""

from __future__ import annotations

import json

from scripts.site.search_terms import (
    KIND_BOOST,
    add_variants,
    page_boost,
    page_url,
    respelled,
    variants,
)


def test_british_and_american_spellings_find_each_other():
    assert respelled("specialisation") == {"specialization"}
    assert respelled("specialization") == {"specialisation"}
    assert respelled("analyse") == {"analyze"}
    assert respelled("colour") == {"color"}
    assert respelled("warp") == set()


def test_a_hyphenated_word_is_found_joined_and_in_parts():
    found = set(variants("<p>The all-reduce and warp-specialised kernels</p>").split())
    assert {"allreduce", "all", "reduce", "warp-specialized"} <= found
    # Nothing the text already holds is repeated.
    assert "kernels" not in found and "all-reduce" not in found


def test_lessons_weigh_more_than_exercises_and_references():
    assert page_boost("lesson") > page_boost("exercise") > page_boost("reference")
    assert page_boost(None) == 1.0 and set(KIND_BOOST) >= {"lesson", "reference"}


def test_page_urls_follow_directory_urls():
    assert page_url("index.md") == ""
    assert page_url("kernels/index.md") == "kernels/"
    assert page_url("kernels/frontier/warp-specialisation.md") == (
        "kernels/frontier/warp-specialisation/"
    )


def test_the_index_gains_variant_fields_and_the_taught_term(tmp_path):
    index = tmp_path / "search_index.json"
    docs = [
        {"location": "a/", "title": "Warp specialisation", "text": "<p>all-reduce</p>"},
        {"location": "b/", "title": "Other", "text": "<p>plain words</p>"},
    ]
    index.write_text(json.dumps({"config": {}, "docs": docs}))
    add_variants(index, [{"term": "Tensor memory", "lesson": "b.md"}])
    first, second = json.loads(index.read_text())["docs"]
    assert "specialization" in first["title_variants"].split()
    assert "allreduce" in first["text_variants"].split()
    # The glossary's lesson for a term carries it, in the title's weight.
    assert {"tensor", "memory"} <= set(second["title_variants"].split())
    assert "text_variants" not in second
