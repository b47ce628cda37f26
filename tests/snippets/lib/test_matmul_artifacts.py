"""The artifact reader: good, missing, stale and malformed artifacts.

The fixture is a real sm_90a artifact of kernels/matmul.py's bf16 build
(`python -m scripts.artifacts`'s output), frozen so these tests do not
depend on the committed one; tests/scripts/artifacts/test_build.py checks
that it still follows the artifact schema.
"""

import copy
import json
from hashlib import sha256
from pathlib import Path

import pytest

from evidence.artifacts import hgmma_shape, staleness_note
from snippets.lib import matmul_artifacts as f

FIXTURE = Path(__file__).parent / "fixtures" / "matmul.sm_90a.json"


def write(tmp_path: Path, artifact: dict) -> Path:
    path = tmp_path / "matmul.sm_90a.json"
    path.write_text(json.dumps(artifact))
    return path


@pytest.fixture
def artifact() -> dict:
    return json.loads(FIXTURE.read_text())


def test_facts_table_reads_the_fixture():
    table = f.facts_table(FIXTURE)
    assert "| SASS matrix instructions | `HGMMA.64x256x16.F32.BF16` × 4 |" in table
    assert "| registers per thread | 206 (52,736 per program" in table
    assert "147,456 bytes (144 KiB" in table
    assert "| register spills | none |" in table
    assert "| programs per SM (registers and shared memory) | 1 |" in table


def test_reading_checks_the_instruction_shape_against_the_tile():
    text = f.facts_reading(FIXTURE)
    assert "exactly one 128 × 256 × 64 tile step" in text
    assert "accumulator alone takes 128 of the 206 registers" in text
    assert "Nothing spills" in text
    assert "about 132 programs run at once" in text


def test_reading_says_so_when_the_shape_does_not_cover_the_tile(tmp_path, artifact):
    build = artifact["builds"][0]
    build["sass_opcodes"]["HGMMA.64x256x16.F32.BF16"] = 8  # e.g. unrolled twice
    text = f.facts_reading(write(tmp_path, artifact))
    assert "not the 128 × 256 × 64 tile step" in text


def test_reading_without_hgmma_says_the_tensor_cores_are_unused(tmp_path, artifact):
    build = artifact["builds"][0]
    build["sass_opcodes"] = {"FFMA": 4096}
    build["sass_excerpt"] = [x for x in build["sass_excerpt"] if "MMA" not in x]
    path = write(tmp_path, artifact)
    assert "no HGMMA instruction" in f.facts_reading(path)
    assert "| SASS matrix instructions | none |" in f.facts_table(path)
    assert "no matrix instruction" in f.sass_excerpt(path)


def test_spills_are_reported(tmp_path, artifact):
    artifact["builds"][0]["spill_store_bytes"] = 64
    artifact["builds"][0]["spill_load_bytes"] = 96
    path = write(tmp_path, artifact)
    assert "spills 160 bytes" in f.facts_reading(path)
    assert "64 bytes stored, 96 bytes loaded" in f.facts_table(path)


def test_missing_artifact_gives_a_note_not_an_error(tmp_path):
    missing = tmp_path / "none.json"
    assert "Not compiled yet" in f.facts_table(missing)
    assert staleness_note("matmul", missing) == ""
    assert "no compiled artifact" in f.facts_reading(missing)
    assert "needs the compiled artifact" in f.kernel_wave("table", missing)


def test_stale_artifact_is_flagged(tmp_path, artifact):
    source = tmp_path / artifact["source"]
    source.parent.mkdir(parents=True)
    source.write_text("# a kernel that changed\n")
    path = write(tmp_path, artifact)
    assert "Stale artifact" in staleness_note("matmul", path, root=tmp_path)
    artifact["source_sha256"] = sha256(source.read_bytes()).hexdigest()
    path = write(tmp_path, artifact)
    assert staleness_note("matmul", path, root=tmp_path) == ""


@pytest.mark.parametrize(
    "breakage, words",
    [
        (lambda a: a.pop("builds"), "'builds' is a required property"),
        (lambda a: a["builds"][0].pop("registers"), "'registers' is a required"),
        (
            lambda a: a["builds"][0]["signature"].update(a_ptr="*fp32"),
            "no build with a_ptr of type \\*bf16",
        ),
        (lambda a: a["builds"][0]["constexprs"].pop("GROUP_M"), "GROUP_M"),
    ],
    ids=["no-builds", "no-registers", "no-bf16-build", "no-group"],
)
def test_malformed_artifact_fails_naming_file_and_field(
    tmp_path, artifact, breakage, words
):
    broken = copy.deepcopy(artifact)
    breakage(broken)
    path = write(tmp_path, broken)
    with pytest.raises(f.ArtifactError, match=words) as error:
        f.facts_table(path)
    assert str(path) in str(error.value)


def test_invalid_json_fails_naming_the_file(tmp_path):
    path = tmp_path / "matmul.sm_90a.json"
    path.write_text("{not json")
    with pytest.raises(f.ArtifactError, match="not valid JSON"):
        f.load_artifact(path)


def test_aligned_build_is_preferred(tmp_path, artifact):
    unaligned = copy.deepcopy(artifact["builds"][0])
    unaligned["build"] = "bf16-unaligned"
    unaligned["aligned"] = []
    artifact["builds"].insert(0, unaligned)
    build = f.half_precision_build(artifact)
    assert build["build"] == "bf16-aligned"


def test_hgmma_shape_parses_the_opcode():
    assert hgmma_shape("HGMMA.64x256x16.F32.BF16") == (64, 256, 16)
    assert hgmma_shape("HMMA.16816.F32.BF16") is None


def test_programs_per_sm_takes_the_tighter_limit():
    # 206 registers x 256 threads fits once; 144 KiB of shared memory once.
    assert f.programs_per_sm(206, 8, 147456) == 1
    # Small blocks: registers allow 8, shared memory 228 // 16 = 14.
    assert f.programs_per_sm(32, 8, 16 * 1024) == 8
    assert f.programs_per_sm(32, 4, 0) == 16


def test_wave_uses_the_compiled_tile_and_programs():
    assert f.kernel_wave("programs", FIXTURE) == "132"
    table = f.kernel_wave("table", FIXTURE)
    assert "| 8192 | bands of 8 | 8 | 17 |" in table
    with pytest.raises(ValueError, match="part must be"):
        f.kernel_wave("plot", FIXTURE)


def test_sass_excerpt_is_a_fenced_block_around_the_first_hgmma():
    excerpt = f.sass_excerpt(FIXTURE)
    assert excerpt.startswith("```text\n") and excerpt.endswith("\n```")
    assert "HGMMA.64x256x16.F32.BF16" in excerpt


def test_sm90_facts():
    assert f.facts()["register-file"] == "256 KiB"
    assert f.facts()["warpgroup"] == "4 warps"
    with pytest.raises(KeyError, match="l2"):
        f.facts()["l2"]


def with_unaligned_build(artifact: dict) -> dict:
    unaligned = copy.deepcopy(artifact["builds"][0])
    unaligned.update(build="bf16-unaligned", aligned=[], registers=255)
    unaligned.update(spill_store_bytes=348, spill_load_bytes=320)
    unaligned["sass_opcodes"] = {
        "HGMMA.64x256x16.F32.BF16": 4,
        "LDG.E.U16": 96,
        "STS.U16": 96,
    }
    artifact["builds"].append(unaligned)
    return artifact


def test_builds_table_lists_every_build(tmp_path, artifact):
    path = write(tmp_path, with_unaligned_build(artifact))
    table = f.builds_table(path)
    assert table.count("\n") == 3  # header, rule, two builds
    assert "| `bf16-aligned` | `LDGSTS.E.BYPASS.128` × 36 |" in table
    assert "| `bf16-unaligned` | `LDG.E.U16` × 96 |" in table
    assert "| 255 | 144 KiB | 668 bytes |" in table


def test_alignment_reading_compares_the_two_bf16_builds(tmp_path, artifact):
    path = write(tmp_path, with_unaligned_build(artifact))
    text = f.alignment_reading(path)
    assert "loads with `LDG.E.U16` × 96 where the aligned build uses" in text
    assert "`LDGSTS.E.BYPASS.128` × 36" in text
    assert "255 registers instead of 206 and spills 668 bytes" in text


def test_alignment_reading_needs_both_builds_and_a_difference(tmp_path, artifact):
    assert f.alignment_reading(FIXTURE) == ""  # only the aligned build
    assert f.alignment_reading(tmp_path / "none.json") == ""
    same = with_unaligned_build(copy.deepcopy(artifact))
    same["builds"][1]["sass_opcodes"] = dict(same["builds"][0]["sass_opcodes"])
    assert "changes nothing" in f.alignment_reading(write(tmp_path, same))
