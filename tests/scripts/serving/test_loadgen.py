import pytest

from evidence import ResultFileError, validate
from scripts.serving import loadgen


def test_group_steps_keeps_counts_and_means():
    steps = [
        {"seqs": 2, "prefill_tokens": 0, "decode_tokens": 2, "seconds": 0.001},
        {"seqs": 2, "prefill_tokens": 0, "decode_tokens": 2, "seconds": 0.003},
        {"seqs": 1, "prefill_tokens": 9, "decode_tokens": 0, "seconds": 0.004},
    ]
    grouped = loadgen.group_steps(steps, 6)
    assert [g["count"] for g in grouped] == [1, 2]
    assert grouped[1]["seconds"] == pytest.approx(0.002)
    assert loadgen.columns(grouped)["seqs"] == [1, 2]


def test_prompts_are_seeded_corpus_slices():
    a = loadgen.make_prompts(5, (4, 9), seed=1)
    assert a == loadgen.make_prompts(5, (4, 9), seed=1)
    assert all(4 <= len(p) <= 9 for p in a)


def test_stem_and_unique_names(tmp_path):
    result = {
        "identity": {
            "started_utc": "2026-11-30T21:00:00+00:00",
            "device_kind": "cpu",
            "profile": "quick",
            "commit": "0123456789abcdef",
        }
    }
    assert loadgen.stem(result) == "20261130T210000Z-cpu-quick-0123456"
    first = loadgen.output_path(result, tmp_path)
    first.write_text("{}")
    assert loadgen.output_path(result, tmp_path).name.endswith("-2.json")


def test_the_schema_rejects_a_result_without_a_device_name():
    with pytest.raises(ResultFileError, match="x.json"):
        validate(
            "serving",
            {
                "schema_version": 1,
                "run_status": "complete",
                "evidence": "x",
                "identity": {},
                "software": {},
                "device": {"kind": "cpu"},
                "settings": {},
                "loads": [],
            },
            "x.json",
        )


def test_one_load_prompt_in_four_is_long():
    profile = loadgen.PROFILES["quick"]
    every, (lo, hi) = profile["long_prompts"]
    prompts = loadgen.load_prompts(40, profile, seed=3)
    assert prompts == loadgen.load_prompts(40, profile, seed=3)
    for i, p in enumerate(prompts):
        if i % every == 0:
            assert lo <= len(p) <= hi
        else:
            assert len(p) <= profile["prompt_chars"][1] < lo
