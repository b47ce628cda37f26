from snippets.compute_sanitizer import findings, planted


def test_every_row_is_well_formed():
    for (case, tool, caching), (expect, text, why) in findings.EXPECTED.items():
        assert case in findings.CASES and case in planted.CASES
        assert tool in findings.TOOLS
        assert isinstance(caching, bool)
        assert expect in ("report", "clean")
        assert (expect == "report") == bool(text), (case, tool)
        assert why


def test_every_case_and_tool_has_a_statement():
    cases = {case for case, _, _ in findings.EXPECTED}
    tools = {tool for _, tool, _ in findings.EXPECTED}
    assert cases == set(findings.CASES)
    assert tools == set(findings.TOOLS)


def test_the_lessons_claims_are_encoded():
    # the caching allocator hides the out-of-bounds read; no caching shows it
    assert findings.expected("oob-read", "memcheck", True)[0] == "clean"
    assert findings.expected("oob-read", "memcheck", False)[0] == "report"
    # racecheck cannot see programs colliding in global memory
    assert findings.expected("global-race", "racecheck", True)[0] == "clean"
    assert findings.expected("clean", "synccheck", False)[0] == "not stated"


def test_table_has_a_row_per_expectation():
    table = findings.expected_table()
    assert table.count("\n") == len(findings.EXPECTED) + 1
    assert findings.CACHING_ENV in table


def test_overrun_by_hand():
    facts = findings.facts()
    assert (facts["overrun"], facts["overrun-bytes"]) == ("24", "96")


def test_expected_why():
    assert "segment" in findings.expected_why("oob-read", "memcheck", True)
    assert findings.expected_why("clean", "synccheck", False) == (
        "no expectation recorded"
    )
