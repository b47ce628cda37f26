"""A race as the one sentence both graders print
(scripts/qualify/race_report.py), from the dict either detector gives."""

from scripts.qualify.race_report import race_problem

RACE = {
    "kernel": "sum_kernel",
    "programs": [[0, 0, 0], [1, 0, 0]],
    "kinds": ["store", "load"],
    "tensor": "out",
    "element": 0,
}


def test_the_sentence_names_both_programs_what_each_did_and_the_element():
    words = race_problem(RACE)
    assert words.startswith("a race in sum_kernel: program (1, 0, 0) loads element "
                            "0 of out, which program (0, 0, 0) stores")  # fmt: skip


def test_an_address_in_no_argument_and_a_hostile_kernel_name_stay_one_line():
    words = race_problem(RACE | {"kernel": "k\n\x1b[2J" + "x" * 300,
                                 "tensor": "", "element": -1})  # fmt: skip
    assert "\n" not in words and "\x1b" not in words
    assert "stores an address in no argument" not in words
    assert "loads an address in no argument" in words
