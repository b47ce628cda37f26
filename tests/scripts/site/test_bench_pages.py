"""Rendering benchmark results into pages (scripts/bench_embed.py).

Fixtures under fixtures/bench/ are synthetic: a GPU-shaped result, a CPU
result, a stale one, a malformed file and one missing a field. Each test
copies what it needs into a temporary results folder beside a fake kernels/
tree whose file hashes the fixtures record (or, for the stale one, do not).
"""

import json
import shutil
import time
from pathlib import Path

import pytest

from scripts import bench_embed, timing

FIXTURES = Path(__file__).parent / "fixtures" / "bench"
KERNEL_TEXT = {
    "fixture_add.py": b"# fixture kernel, version 1\n",
    "fixture_mm.py": b"# fixture matmul\n",
}


@pytest.fixture
def tree(tmp_path):
    """A fake repository root (kernels/) and an empty results folder."""
    (tmp_path / "kernels").mkdir()
    for name, text in KERNEL_TEXT.items():
        (tmp_path / "kernels" / name).write_bytes(text)
    results = tmp_path / "results"
    results.mkdir()

    def add(*names):
        for name in names:
            shutil.copy(FIXTURES / name, results / name)

    return tmp_path, results, add


def render(kernel, tree, page_url=""):
    root, results, _ = tree
    return bench_embed.kernel_results(kernel, page_url, results_dir=results, root=root)


def test_gpu_result_renders_table_plot_and_caption(tree):
    tree[2]("gpu_valid.json")
    text = render("fixture_add", tree, "kernels/matrix-multiplication/tiled-matmul/")
    assert "| Shape | eager | compile | triton | R | Label |" in text
    # Median, then p20-p80 with its unit, then the fraction of the ceiling.
    assert "1.25 ms<br>1.24–1.26 ms<br>F 0.96" in text
    assert "| 1.04 | HBM-bound |" in text
    assert "launch-bound, L2-affected" in text
    assert "Evidence: device measurement" in text
    assert "stale" not in text.lower()
    raw = (FIXTURES / "gpu_valid.json").read_bytes()
    digest = bench_embed.hashlib.sha256(raw).hexdigest()
    assert f"sha256 <code>{digest}</code>" in text
    assert "commit <code>0123456789ab</code>" in text
    assert "torch 2.11.0 (CUDA 12.8), Triton 3.6.0" in text
    assert "2030-01-02 03:04:05 UTC" in text
    # Links are relative to the page (three folders deep here).
    assert 'src="../../../bench/fixture_add.svg"' in text
    assert 'href="../../../bench/results/gpu_valid.json" download' in text


def test_flop_kernel_uses_its_own_baselines_for_r(tree):
    tree[2]("gpu_valid.json")
    text = render("fixture_mm", tree)
    # R = best of eager, compile and the library op (1.45) / triton (1.8).
    assert f"| {1.45 / 1.8:.2f} | FLOP-bound |" in text
    assert "matmul ceiling" in text
    assert 'src="bench/fixture_mm.svg"' in text


def test_cpu_result_is_labelled_cpu_everywhere(tree):
    tree[2]("cpu_valid.json")
    text = render("fixture_add", tree)
    assert "No GPU measurement has been published yet" in text
    assert "CPU (host timers, not device speed): Synthetic CPU" in text
    assert "| CPU host timing |" in text
    assert "interpreter: correct, not timed" in text
    assert "F " not in text  # no fraction of a ceiling from host timers
    assert "| R |" not in text


def test_gpu_result_is_preferred_over_a_newer_cpu_one(tree):
    root, results, add = tree
    add("gpu_valid.json", "cpu_valid.json")
    data = json.loads((results / "cpu_valid.json").read_text())
    data["identity"]["started_utc"] = "2031-01-01T00:00:00+00:00"
    (results / "cpu_valid.json").write_text(json.dumps(data))
    assert "Evidence: device measurement" in render("fixture_add", tree)


def test_stale_result_names_file_and_both_hashes(tree):
    tree[2]("stale.json")
    text = render("fixture_add", tree)
    assert "**stale**" in text
    recorded = json.loads((FIXTURES / "stale.json").read_text())["kernels"]
    old = recorded["fixture_add"]["sources"]["kernels/fixture_add.py"]
    new = bench_embed.hashlib.sha256(KERNEL_TEXT["fixture_add.py"]).hexdigest()
    assert f"`kernels/fixture_add.py` changed: sha256 `{old[:12]}`" in text
    assert f"`{new[:12]}` now" in text
    assert "| Shape |" in text  # the table is still shown


def test_removed_kernel_file_is_reported_as_stale(tree):
    root, _, add = tree
    add("gpu_valid.json")
    (root / "kernels" / "fixture_add.py").unlink()
    assert "`kernels/fixture_add.py` was removed" in render("fixture_add", tree)


def test_no_result_says_not_measured_yet(tree):
    tree[2]("gpu_valid.json")
    text = render("not_a_kernel", tree)
    assert "Not measured yet" in text
    assert "|" not in text


@pytest.mark.parametrize(
    "fixture, message",
    [
        ("malformed.json", r"malformed\.json: not valid JSON"),
        (
            "missing_field.json",
            r"missing_field\.json: missing field 'rows\[4\]\.median_ms'",
        ),
    ],
    ids=["malformed", "missing-field"],
)
def test_bad_file_fails_naming_file_and_field(tree, fixture, message):
    tree[2]("gpu_valid.json", fixture)
    with pytest.raises(bench_embed.ResultFileError, match=message):
        render("fixture_add", tree)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(schema_version=99), "'schema_version' is 99"),
        (
            lambda d: d["rows"][0].update(timed="yes"),
            r"'rows\[0\]\.timed' must be bool",
        ),
        (
            lambda d: d["rows"][1].update(status="fast"),
            r"'rows\[1\]\.status' is 'fast'",
        ),
        (lambda d: d["rows"][2].update(samples_ms=[]), r"'rows\[2\]\.samples_ms'"),
        (lambda d: d["rows"][0].update(p20_ms=99.0), r"'rows\[0\]\.p20_ms' <="),
        (lambda d: d["rows"][0].update(kernel="other"), "'kernels' does not list"),
        (lambda d: d["identity"].pop("commit"), "missing field 'identity.commit'"),
        (
            lambda d: d["ceilings"]["copy"].pop("bandwidth_bytes_per_s"),
            "'ceilings.copy.bandwidth_bytes_per_s'",
        ),
        (
            lambda d: d["kernels"]["fixture_add"]["sources"].update({"k.py": "ab"}),
            r"'kernels\.fixture_add\.sources\.k\.py' must be a sha256",
        ),
    ],
    ids=[
        "version",
        "type",
        "status",
        "samples",
        "order",
        "kernel",
        "identity",
        "ceiling",
        "sha",
    ],
)
def test_validation_names_the_field(tree, edit, message):
    root, results, _ = tree
    data = json.loads((FIXTURES / "gpu_valid.json").read_text())
    edit(data)
    (results / "edited.json").write_text(json.dumps(data))
    with pytest.raises(bench_embed.ResultFileError, match=message):
        render("fixture_add", tree)


def test_flagged_and_incorrect_rows_show_no_time(tree):
    root, results, _ = tree
    data = json.loads((FIXTURES / "gpu_valid.json").read_text())
    data["rows"][5]["status"] = "implausible"
    data["rows"][5]["flags"] = ["impossible: median below the copy bound"]
    data["rows"][4]["status"] = "incorrect"
    data["rows"][4]["reason"] = "12 elements outside the error bound"
    data["shape_errors"] = [
        {"kernel": "fixture_add", "shape_text": "9×9", "error": "OutOfMemoryError"}
    ]
    (results / "flagged.json").write_text(json.dumps(data))
    text = render("fixture_add", tree)
    row = next(line for line in text.splitlines() if line.startswith("| 20000"))
    assert "**flagged**" in row and "**incorrect**" in row
    assert "1.25 ms" not in row and "1.3 ms" not in row
    assert row.split("|")[-3].strip() == "—"  # no R without a valid Triton time
    assert (
        "- 20000×10000 bfloat16, triton: impossible: median below the copy bound"
        in text
    )
    assert "compile: incorrect: 12 elements outside the error bound" in text
    assert "- 9×9: could not run: OutOfMemoryError" in text


def test_svg_is_byte_identical_across_renders(tree):
    root, results, add = tree
    add("gpu_valid.json", "cpu_valid.json")
    first = bench_embed.site_files(results, root)
    bench_embed._cache.clear()
    second = bench_embed.site_files(results, root)
    assert first == second
    svg = first["bench/fixture_add.svg"]
    assert svg.startswith(b"<?xml")
    assert b"Synthetic GPU" in svg  # text stays text (svg.fonttype none)
    assert b"<dc:date>" not in svg
    assert (
        first["bench/results/gpu_valid.json"]
        == (FIXTURES / "gpu_valid.json").read_bytes()
    )


def test_cpu_only_kernel_gets_a_host_time_plot(tree):
    root, results, add = tree
    add("cpu_valid.json")
    svg = bench_embed.site_files(results, root)["bench/fixture_add.svg"]
    assert b"CPU host timing (not device speed)" in svg


def test_all_results_lists_identity_and_ceilings(tree):
    root, results, add = tree
    add("gpu_valid.json", "cpu_valid.json")
    text = bench_embed.all_results(results_dir=results, root=root)
    assert text.index("gpu_valid.json") < text.index("cpu_valid.json")  # newest first
    assert 'href="../../bench/results/cpu_valid.json" download' in text
    assert "1000 GB/s, 1100 GB/s" in text
    assert "100 TFLOP/s, 110 TFLOP/s (bfloat16 4096×4096×4096)" in text
    assert "CPU host timing" in text


def test_empty_results_folder(tmp_path):
    assert "No result files" in bench_embed.all_results(results_dir=tmp_path)
    assert bench_embed.site_files(tmp_path, tmp_path) == {}


def test_labels_follow_the_method():
    l2 = 50_000_000
    classify = bench_embed.classify
    assert classify("bandwidth", 0.005, 10 * l2, l2) == ["launch-bound"]
    assert classify("bandwidth", 0.02, l2, l2) == ["L2-affected"]
    assert classify("bandwidth", 0.06, 4 * l2, l2) == ["HBM-bound"]
    assert classify("flops", 0.06, 4 * l2, l2) == ["FLOP-bound"]
    assert classify("bandwidth", 0.04, 4 * l2, l2) == ["unclassified"]
    assert classify("bandwidth", 0.06, 3 * l2, l2) == ["unclassified"]
    assert classify("bandwidth", 0.06, 4 * l2, l2, on_gpu=False) == ["CPU host timing"]


def test_plausibility_flags_an_impossible_time():
    # 3 GB at 4 TB/s takes 0.75 ms at least; 0.5 ms is impossible.
    flags = bench_embed.plausibility_flags(3_000_000_000, 0.5, 4e12)
    assert flags and flags[0].startswith("impossible")
    assert bench_embed.plausibility_flags(3_000_000_000, 0.8, 4e12) == []
    # Within the stated slack of the copy bound is still possible.
    slack = bench_embed.METHOD["plausibility_slack"]
    assert (
        bench_embed.plausibility_flags(3_000_000_000, 0.75 / slack + 1e-6, 4e12) == []
    )


def test_method_numbers_are_the_ones_the_harness_uses():
    assert bench_embed.METHOD["flush_l2_multiple"] == timing.FLUSH_L2_MULTIPLE
    assert bench_embed.method_value("warmup_ms") == "100"
    assert bench_embed.method_value("launch_bound_us") == "10"
    assert all(
        r >= bench_embed.METHOD["min_rounds"]
        for r, _ in bench_embed.PROFILE_ROUNDS.values()
    )
    with pytest.raises(KeyError, match="no setting 'nope'"):
        bench_embed.method_value("nope")


def test_goals_table_has_every_kernel_row():
    text = bench_embed.goals_table()
    assert text.count("\n") == len(bench_embed.GOALS) + 2
    assert "| transpose | R ≥ 0.95, F_bw ≥ 0.80 | F_bw ≥ 0.88 |" in text


def test_committed_results_render_within_the_build_budget():
    """The real results/bench/ files: every kernel's table and plot, under 2 s."""
    bench_embed._cache.clear()
    start = time.perf_counter()
    kernels = sorted({k for r in bench_embed.load_results() for k in r.data["kernels"]})
    for kernel in kernels:
        bench_embed.kernel_results(kernel, "reference/benchmarks/")
    bench_embed.all_results()
    files = bench_embed.site_files()
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, f"rendering took {elapsed:.2f} s"
    for kernel in kernels:
        assert f"bench/{kernel}.svg" in files
