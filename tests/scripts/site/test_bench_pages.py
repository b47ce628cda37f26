"""Rendering benchmark results into pages (scripts/site/bench_pages.py).

Fixtures under fixtures/bench/ are synthetic (matmul-cpu-tiny.json excepted:
a real CPU run, migrated to schema 2): a GPU-shaped result, a CPU
result, a stale one, a malformed file and one missing a field. Each test
copies what it needs into a temporary results folder beside a fake kernels/
tree whose file hashes the fixtures record (or, for the stale one, do not).
"""

import copy
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evidence import current_sources, sha256_bytes
from evidence.benchmarks import load_results
from evidence.method import METHOD, PROFILE_ROUNDS
from scripts.site import bench_goals, bench_pages, bench_plot
from snippets.tiled_matmul import measurement

FIXTURES = Path(__file__).parent / "fixtures" / "bench"
KERNEL_TEXT = {
    "fixture_add.py": b"# fixture kernel, version 1\n",
    "fixture_mm.py": b"# fixture matmul\n",
}


@pytest.fixture
def tree(tmp_path):
    """A fake repository root (kernels/, a catalog of the fixture kernels in
    results/kernels.json) and an empty results folder."""
    (tmp_path / "kernels").mkdir()
    for name, text in KERNEL_TEXT.items():
        (tmp_path / "kernels" / name).write_bytes(text)
    results = tmp_path / "results" / "bench"
    results.mkdir(parents=True)
    shutil.copy(FIXTURES / "catalog" / "kernels.json", tmp_path / "results")

    def add(*names):
        for name in names:
            shutil.copy(FIXTURES / name, results / name)

    return tmp_path, results, add


def render(kernel, tree, page_url=""):
    root, results, _ = tree
    return bench_pages.kernel_results(kernel, page_url, results_dir=results, root=root)


def test_gpu_result_renders_table_plot_and_caption(tree):
    tree[2]("gpu_valid.json")
    text = render("fixture_add", tree, "kernels/matrix-multiplication/tiled-matmul/")
    assert "| Shape | eager | compile | triton | R | Label |" in text
    # Median, then p20-p80 with its unit, then the fraction of the ceiling.
    assert "1.25 ms<br>1.24–1.26 ms<br>F 0.96" in text
    assert "| 1.04 | HBM-bound |" in text
    assert "launch-bound, L2-affected" in text
    assert "*Synthetic GPU (test fixture), measured*" in text
    assert "python -m scripts.bench --profile " in text and " fixture_add`" in text
    assert "stale" not in text.lower()
    raw = (FIXTURES / "gpu_valid.json").read_bytes()
    digest = sha256_bytes(raw)
    assert f"sha256 <code>{digest}</code>" in text
    assert "commit <code>0123456789ab</code>" in text
    assert "torch 2.11.0 (CUDA 12.8), Triton 3.6.0" in text
    assert "2025-01-02 03:04:05 UTC" in text
    # Links are relative to the page (three folders deep here).
    assert 'src="../../../bench/fixture_add.svg#only-light"' in text
    # The dark scheme's plot, and a caption that says what the plot shows
    # with the run's identity folded under it.
    assert 'src="../../../bench/fixture_add-dark.svg#only-dark"' in text
    assert ": achieved GB/s per shape on Synthetic GPU" in text
    assert "<details><summary>The run behind it</summary>" in text
    assert 'href="../../../bench/results/gpu_valid.json" download' in text


def test_flop_kernel_uses_its_own_baselines_for_r(tree):
    tree[2]("gpu_valid.json")
    text = render("fixture_mm", tree)
    # R = best of eager, compile and the library op (1.45) / triton (1.8).
    assert f"| {1.45 / 1.8:.2f} | FLOP-bound |" in text
    assert "matmul ceiling" in text
    assert 'src="bench/fixture_mm.svg#only-light"' in text


def test_cpu_result_is_labelled_cpu_everywhere(tree):
    tree[2]("cpu_valid.json")
    text = render("fixture_add", tree)
    assert "*CPU run, host timers: not device speed." in text
    assert "CPU, host timers: Synthetic CPU" in text
    assert text.count("not device speed") == 1
    assert "| CPU host timing |" in text
    assert "interpreter: correct, not timed" in text
    assert "F " not in text  # no fraction of a ceiling from host timers
    assert "| R |" not in text
    # The legend and the reproduce line are said once, on the Benchmarks
    # page, and linked; the table, the notes and the plot stay.
    assert "Each cell" not in text and "Reproduce on your GPU" not in text
    assert 'href="reference/benchmarks/#kernels"' in text
    assert "| Shape |" in text and "<figure" in text
    assert "Eager here is two kernels." in text  # this kernel's own baseline


def test_gpu_result_is_preferred_over_a_newer_cpu_one(tree):
    root, results, add = tree
    add("gpu_valid.json", "cpu_valid.json")
    data = json.loads((results / "cpu_valid.json").read_text())
    data["identity"]["started_utc"] = "2026-01-01T00:00:00+00:00"
    (results / "cpu_valid.json").write_text(json.dumps(data))
    assert "measured*" in render("fixture_add", tree)


def test_stale_result_names_file_and_both_hashes(tree):
    tree[2]("stale.json")
    text = render("fixture_add", tree)
    assert "**stale**" in text
    recorded = json.loads((FIXTURES / "stale.json").read_text())["kernels"]
    old = recorded["fixture_add"]["sources"]["kernels/fixture_add.py"]
    new = sha256_bytes(KERNEL_TEXT["fixture_add.py"])
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
            r"missing_field\.json: field 'rows\[4\]': 'median_ms' is a required",
        ),
    ],
    ids=["malformed", "missing-field"],
)
def test_bad_file_fails_naming_file_and_field(tree, fixture, message):
    tree[2]("gpu_valid.json", fixture)
    with pytest.raises(bench_pages.ResultFileError, match=message):
        render("fixture_add", tree)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(schema_version=99), "'schema_version': 2 was expected"),
        (
            lambda d: d["rows"][0].update(timed="yes"),
            r"'rows\[0\]\.timed': 'yes' is not of type 'boolean'",
        ),
        (
            lambda d: d["rows"][1].update(status="fast"),
            r"'rows\[1\]\.status': 'fast' is not one of",
        ),
        (lambda d: d["rows"][2].update(samples_ms=[]), r"'rows\[2\]\.samples_ms'"),
        (lambda d: d["rows"][0].update(p20_ms=99.0), r"'rows\[0\]\.p20_ms' <="),
        (lambda d: d["rows"][0].update(kernel="other"), "'kernels' does not list"),
        (
            lambda d: d["identity"].pop("commit"),
            "field 'identity': 'commit' is a required property",
        ),
        (
            lambda d: d["ceilings"]["copy"].pop("bandwidth_bytes_per_s"),
            "'ceilings.copy': 'bandwidth_bytes_per_s' is a required",
        ),
        (
            lambda d: d["kernels"]["fixture_add"]["sources"].update({"k.py": "ab"}),
            r"'kernels\.fixture_add\.sources\.k\.py': 'ab' does not match",
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
    with pytest.raises(bench_pages.ResultFileError, match=message):
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
    first = bench_plot.site_files(results, root)
    bench_plot._cache.clear()
    second = bench_plot.site_files(results, root)
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
    svg = bench_plot.site_files(results, root)["bench/fixture_add.svg"]
    assert b"host time on a CPU" in svg


def test_all_results_lists_identity_and_ceilings(tree):
    root, results, add = tree
    add("gpu_valid.json", "cpu_valid.json")
    text = bench_pages.all_results(results_dir=results, root=root)
    assert text.index("gpu_valid.json") < text.index("cpu_valid.json")  # newest first
    assert 'href="../../bench/results/cpu_valid.json" download' in text
    assert "1000 GB/s, 1100 GB/s" in text
    assert "100 TFLOP/s, 110 TFLOP/s (bfloat16 4096×4096×4096)" in text
    assert "CPU host timing" in text


def test_empty_results_folder(tmp_path):
    assert "No result files" in bench_pages.all_results(results_dir=tmp_path)
    assert bench_plot.site_files(tmp_path, tmp_path) == {}


def test_method_numbers_as_the_page_prints_them():
    assert bench_pages.facts()["warmup_ms"] == "100"
    assert bench_pages.facts()["launch_bound_us"] == "10"
    assert bench_pages.facts()["min_rounds"] == str(METHOD["min_rounds"])
    assert "nope" not in bench_pages.facts()  # the hook refuses unknown keys
    assert bench_pages.facts()["rounds_quick"] == "3 rounds of 10 timed calls"
    assert bench_pages.facts()["rounds_compare"] == (
        "5 rounds of 20 timed calls (5 of 10 on a CPU)"
    )
    assert set(PROFILE_ROUNDS) >= {"quick", "full"}
    assert bench_pages.facts()["schema_version"] == "2"


def target(metric, at_least, shape=None, note=""):
    return {"metric": metric, "at_least": at_least, "shape": shape, "note": note}


def catalog_entry(title, goals):
    return {"title": title, "goals": goals}


CATALOG = {
    "schema_version": 1,
    "kernels": {
        "transpose": catalog_entry(
            "transpose",
            [
                {
                    "regime": "HBM-bound sizes",
                    "must": [target("R", 0.95), target("F_bw", 0.80)],
                    "stretch": [target("F_bw", 0.88)],
                }
            ],
        ),
        "residual_add_relu": catalog_entry(
            "residual add + ReLU",
            [
                {
                    "regime": "HBM-bound sizes",
                    "must": [
                        target("R", 0.95),
                        target("F_bw", 0.85),
                        target("speedup_vs_eager", 1.4),
                    ],
                    "stretch": [target("F_bw", 0.92)],
                }
            ],
        ),
        "matmul": catalog_entry(
            "matmul",
            [
                {
                    "regime": "bf16",
                    "must": [
                        target("R", 0.80, {"M": 8192, "N": 8192, "K": 8192}),
                        target("F_flop", 0.65),
                    ],
                    "stretch": [],
                }
            ],
        ),
    },
}


@pytest.fixture
def catalog(tmp_path, monkeypatch):
    """A catalog file read without the catalog schema (helper K's), so
    these tests check the table, not the catalog's validation."""
    path = tmp_path / "kernels.json"
    path.write_text(json.dumps(CATALOG))

    real_read = bench_goals.read

    def read_plain(kind, file, root=None):
        if kind != "catalog":
            return real_read(kind, file, root)
        return type("Loaded", (), {"data": json.loads(Path(file).read_text())})

    monkeypatch.setattr(bench_goals, "read", read_plain)
    monkeypatch.setattr(measurement, "read", read_plain)
    return path


def test_goals_table_has_every_kernel_row(catalog):
    text = bench_goals.goals_table(catalog)
    assert text.count("\n") == len(CATALOG["kernels"]) + 2
    assert "| Kernel | Where | Must | Stretch |" in text
    assert (
        "| transpose | HBM-bound sizes | R ≥ 0.95, F_bw ≥ 0.80 | F_bw ≥ 0.88 |" in text
    )
    assert (
        "| residual add + ReLU | HBM-bound sizes | R ≥ 0.95, F_bw ≥ 0.85, "
        "≥ 1.4× eager |" in text
    )
    assert "| matmul | bf16 | R ≥ 0.80 at 8192³, F_flop ≥ 0.65 | — |" in text


def test_goals_table_without_a_catalog_says_not_available(tmp_path):
    text = bench_goals.goals_table(tmp_path / "kernels.json")
    assert "not available" in text and "|" not in text


def test_table_cells_from_a_result_are_escaped(tree):
    root, results, _ = tree
    data = json.loads((FIXTURES / "gpu_valid.json").read_text())
    for row in data["rows"]:
        row["shape_text"] = "<b>1|2</b>"
    (results / "odd.json").write_text(json.dumps(data))
    text = render("fixture_add", tree)
    assert "<b>" not in text and "&lt;b&gt;1&#124;2&lt;/b&gt;" in text


def gpu_file_from(cpu: dict, sources: dict) -> dict:
    """A GPU-shaped result built from the real CPU one, for the reader."""
    data = copy.deepcopy(cpu)
    data["identity"].update(device_kind="cuda", started_utc="2026-06-01T00:00:00Z")
    data["identity"]["finished_utc"] = None
    data["device"] = {"kind": "cuda", "name": "NVIDIA H200"}
    data["settings"].update(timer="cuda-event", triton_interpret=False)
    data["ceilings"]["copy"]["best_bandwidth_bytes_per_s"] = 4.3e12
    data["kernels"]["matmul"]["sources"] = sources
    config = {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}
    for r in data["rows"]:
        r.update(shape={"M": 8192, "N": 8192, "K": 8192}, dtype="bfloat16")
        r.update(timed=True, status="ok", median_ms=1.6, p20_ms=1.5, p80_ms=1.7)
        r.update(first_call_ms=9.0, samples_ms=[1.6], timer="cuda-event")
        r.update(device_kind="cuda", labels=["FLOP-bound"])
        r["fraction_of_ceiling"] = 0.7
        if r["provider"] == "triton":
            r.pop("schema1_triton_config", None)
            launch = {"kernel": "matmul_kernel", "constexprs": config, "num_warps": 8}
            r["launches"] = [launch]
    return data


def test_matmul_reading_reads_the_file_the_table_shows(tmp_path, catalog):
    cpu = json.loads((FIXTURES / "matmul-cpu-tiny.json").read_text())
    folder = tmp_path / "results"
    folder.mkdir()

    def reading():
        return measurement.reading(results_dir=folder, catalog=catalog)

    assert "No GPU measurement" in reading()
    (folder / "cpu.json").write_text(json.dumps(cpu))
    assert "CPU run" in reading()
    gpu = gpu_file_from(cpu, current_sources("matmul"))
    (folder / "gpu.json").write_text(json.dumps(gpu))
    text = reading()
    assert text.startswith("Measured on NVIDIA H200")
    assert "older version" not in text
    assert "meets the goal of 65%" in text  # the catalog's goal
    assert "Its 128 × 256 tiles request" in text  # the recorded launch's tile
    gpu["kernels"]["matmul"]["sources"] = {"kernels/matmul.py": "0" * 64}
    (folder / "gpu.json").write_text(json.dumps(gpu))
    assert "from an older version of the kernel" in reading()


def test_committed_results_render_and_do_not_hang():
    """The real results/bench/ files: every kernel's table and plot. Their
    budget (2 s of CPU) is make bench-site's to measure; this guards only
    against a hang, at ten times it."""
    bench_plot._cache.clear()
    start = time.process_time()
    kernels = sorted({k for r in load_results() for k in r.data["kernels"]})
    for kernel in kernels:
        bench_pages.kernel_results(kernel, "reference/benchmarks/")
    bench_pages.all_results()
    files = bench_plot.site_files()
    elapsed = time.process_time() - start
    assert elapsed < 20, f"rendering hung: {elapsed:.0f} s of CPU time"
    for kernel in kernels:
        assert f"bench/{kernel}.svg" in files


def test_the_pages_import_neither_torch_nor_triton():
    code = (
        "import sys, scripts.site.bench_pages; "
        "assert not {'torch', 'triton'} & set(sys.modules)"
    )
    root = Path(__file__).resolve().parents[3]
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True, timeout=120)


def test_the_backend_a_library_baseline_ran_is_shown(tree):
    root, results, add = tree
    add("gpu_valid.json")
    data = json.loads((results / "gpu_valid.json").read_text())
    library = [r for r in data["rows"] if r["provider_kind"] == "library"]
    if not library:
        pytest.skip("the fixture has no library provider")
    library[0]["device_kernels"] = ["flash_fwd_kernel<b>"]
    (results / "gpu_valid.json").write_text(json.dumps(data))
    text = render(library[0]["kernel"], tree, "kernels/x/page/")
    assert "Device kernels the library baselines launched" in text
    assert "kernel&lt;b&gt;</code>" in text and "<b>" not in text
    assert 'href="../../../reference/benchmarks/#contribute-a-result"' in text


def test_two_devices_are_shown_side_by_side_never_mixed(tree):
    root, results, add = tree
    add("gpu_valid.json")
    data = json.loads((results / "gpu_valid.json").read_text())
    data["device"]["name"] = "Another GPU"
    (results / "gpu_other.json").write_text(json.dumps(data))
    text = render("fixture_add", tree)
    assert "#### Another GPU" in text and "#### Synthetic GPU (test fixture)" in text
    assert text.index("#### Another GPU") < text.index("#### Synthetic GPU")
    files = bench_plot.site_files(results, root)
    plots = [p for p in files if p.startswith("bench/fixture_add")]
    assert len(plots) == 4  # each device's, light and dark
    for plot in plots:
        scheme = "dark" if plot.endswith("-dark.svg") else "light"
        assert f'src="{plot}#only-{scheme}"' in text
