"""Result files written by an attacker (issue 14, "Result files, tried as an
attacker would"): one file per case, each built in tmp_path from a valid
fixture. The rule everywhere: a bad file fails the build with one line that
names the file and the field; text from a file is shown escaped, never as
markup; nothing is written outside the site's bench/ folder.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from evidence import MAX_BYTES, ResultFileError
from evidence.benchmarks import load_results
from scripts.site import bench_pages, bench_plot

FIXTURES = Path(__file__).parents[1] / "scripts" / "site" / "fixtures" / "bench"
SHOWN = "results/bench/hostile.json"


@pytest.fixture
def root(tmp_path):
    """A checkout with the fixture kernels, their catalog and results/bench/."""
    (tmp_path / "kernels").mkdir()
    for name in ("fixture_add.py", "fixture_mm.py"):
        (tmp_path / "kernels" / name).write_text("# fixture\n")
    (tmp_path / "results" / "bench").mkdir(parents=True)
    shutil.copy(FIXTURES / "catalog" / "kernels.json", tmp_path / "results")
    return tmp_path


def valid(name: str = "gpu_valid.json") -> dict:
    return json.loads((FIXTURES / name).read_text())


def write(root: Path, data: dict | str) -> Path:
    path = root / "results" / "bench" / "hostile.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def refused(root: Path) -> str:
    """The one-line message loading the results folder fails with."""
    with pytest.raises(ResultFileError) as caught:
        load_results(root / "results" / "bench", root)
    message = str(caught.value)
    assert "\n" not in message, message
    return message


def timed(row: dict, ms: float) -> None:
    row.update(median_ms=ms, p20_ms=ms, p80_ms=ms, samples_ms=[ms])


def test_the_valid_fixtures_load(root):
    """The control: the files every case below starts from are accepted."""
    data = on("NVIDIA H200", valid())  # within the datasheet, so accepted
    write(root, data)
    shutil.copy(FIXTURES / "cpu_valid.json", root / "results" / "bench")
    assert len(load_results(root / "results" / "bench", root)) == 2


# --------------------------------------------------------------------------
# Timings, counts and rates: finite, positive where physical, below a cap
# --------------------------------------------------------------------------


def _cpu_median(value):
    def edit(data):
        data["rows"][0]["median_ms"] = value

    return edit


@pytest.mark.parametrize(
    "name, edit, field",
    [
        ("cpu_valid.json", _cpu_median(-2.0), "rows[0].median_ms"),
        ("cpu_valid.json", _cpu_median(0), "rows[0].median_ms"),
        ("cpu_valid.json", _cpu_median(1e300), "rows[0].median_ms"),
        (
            "cpu_valid.json",
            lambda d: d["rows"][1].update(samples_ms=[0.009, -1.0]),
            "rows[1].samples_ms[1]",
        ),
        (
            "gpu_valid.json",
            lambda d: d["rows"][5].update(median_ms=0),
            "rows[5].median_ms",
        ),
        (
            "gpu_valid.json",
            lambda d: d["rows"][5].update(bytes_moved=10**400),
            "rows[5].bytes_moved",
        ),
        (
            "gpu_valid.json",
            lambda d: d["rows"][6].update(flops=2**63),
            "rows[6].flops",
        ),
        (
            "gpu_valid.json",
            lambda d: d["ceilings"]["copy"].update(bandwidth_bytes_per_s=0),
            "ceilings.copy.bandwidth_bytes_per_s",
        ),
        (
            "gpu_valid.json",
            lambda d: d["ceilings"]["matmul"].update(flop_rate_per_s=-1.0),
            "ceilings.matmul.flop_rate_per_s",
        ),
    ],
    ids=[
        "negative-time",
        "zero-time",
        "1e300-time",
        "negative-sample",
        "zero-gpu-median",
        "bytes-10e400",
        "flops-2e63",
        "zero-copy-ceiling",
        "negative-matmul-ceiling",
    ],
)
def test_out_of_range_numbers_are_refused(root, name, edit, field):
    data = valid(name)
    edit(data)
    write(root, data)
    assert refused(root).startswith(f"{SHOWN}: field '{field}': ")


@pytest.mark.parametrize(
    "literal, field",
    [
        ('"median_ms": Infinity', "rows[0].median_ms"),
        ('"median_ms": 1e400', "rows[0].median_ms"),
        ('"bandwidth_bytes_per_s": NaN', "ceilings.copy.bandwidth_bytes_per_s"),
    ],
    ids=["infinity", "overflowing-literal", "nan-copy-ceiling"],
)
def test_non_finite_numbers_are_refused_naming_the_field(root, literal, field):
    key = literal.split(":")[0]
    text = json.dumps(valid("cpu_valid.json"), indent=1)
    # Replace the first occurrence of the key's value with the literal.
    start = text.index(key + ": ")
    end = text.index("\n", start)
    comma = "," if text[end - 1] == "," else ""
    write(root, text[:start] + literal + comma + text[end:])
    message = refused(root)
    assert message.startswith(f"{SHOWN}: field '{field}': non-finite number")


def test_a_nan_copy_ceiling_is_never_shown(root):
    text = json.dumps(valid(), indent=1).replace(
        '"bandwidth_bytes_per_s": 1000000000000.0', '"bandwidth_bytes_per_s": NaN'
    )
    write(root, text)
    with pytest.raises(ResultFileError, match="ceilings.copy.bandwidth_bytes_per_s"):
        bench_pages.all_results(results_dir=root / "results" / "bench", root=root)


# --------------------------------------------------------------------------
# Dates, kernel names
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("started_utc", "zzzz"),
        ("started_utc", "2026-11-29T15:10:19"),  # no zone: not known to be UTC
        ("started_utc", "2026-11-29T15:10:19+02:00"),
        ("finished_utc", "later"),
    ],
    ids=["zzzz", "naive", "not-utc", "finished"],
)
def test_dates_must_parse_as_utc(root, field, value):
    data = valid()
    data["identity"][field] = value
    write(root, data)
    assert refused(root).startswith(f"{SHOWN}: field 'identity.{field}': ")


def test_a_z_suffix_is_utc(root):
    data = valid()
    data["identity"]["started_utc"] = "2025-01-02T03:04:05Z"
    write(root, data)
    assert len(load_results(root / "results" / "bench", root)) == 1


def _rename_kernel(new: str):
    def edit(data):
        data["kernels"][new] = data["kernels"].pop("fixture_add")
        for row in data["rows"]:
            if row["kernel"] == "fixture_add":
                row["kernel"] = new

    return edit


@pytest.mark.parametrize(
    "edit, field",
    [
        (_rename_kernel("../x"), "kernels"),
        (_rename_kernel("Fixture_Add"), "kernels"),
        (_rename_kernel("no_such_kernel"), "kernels.no_such_kernel"),
        (lambda d: d["rows"][0].update(kernel="../../x"), "rows[0].kernel"),
        (
            lambda d: d.update(shape_errors=[{"kernel": "<x>", "error": "e"}]),
            "shape_errors[0].kernel",
        ),
    ],
    ids=["dot-dot", "capitals", "unknown", "row-dot-dot", "shape-error"],
)
def test_kernel_names_must_be_plain_and_known(root, edit, field):
    data = valid()
    edit(data)
    write(root, data)
    assert refused(root).startswith(f"{SHOWN}: field '{field}': ")


def test_a_missing_catalog_refuses_rather_than_trusting_names(root):
    (root / "results" / "kernels.json").unlink()
    write(root, valid())
    assert "results/kernels.json: missing" in refused(root)


# --------------------------------------------------------------------------
# Physical plausibility against the datasheet
# --------------------------------------------------------------------------


def on(device: str, data: dict) -> dict:
    """The fixture renamed; as an H200, with an H200's SMs, memory and L2."""
    data["device"]["name"] = device
    if device == "NVIDIA H200":
        data["device"].update(sm_count=132, memory_bytes=150 * 10**9, l2_bytes=50 << 20)
    return data


def test_faster_than_the_h200_datasheet_bandwidth_is_impossible(root):
    data = on("NVIDIA H200", valid())
    timed(data["rows"][5], 1.2e9 / 9.9e12 * 1e3)  # 9.9 TB/s; the H200 has 4.8
    write(root, data)
    message = refused(root)
    assert message.startswith(f"{SHOWN}: field 'rows[5].median_ms': impossible: ")
    assert "9.9 TB/s" in message and "4.8 TB/s" in message


def test_faster_than_the_h200_dense_peak_is_impossible(root):
    data = on("NVIDIA H200", valid())
    timed(data["rows"][9], 137438953472 / 1.2e15 * 1e3)  # 1,200 TFLOP/s
    write(root, data)
    message = refused(root)
    assert message.startswith(f"{SHOWN}: field 'rows[9].median_ms': impossible: ")
    assert "TFLOP/s" in message


@pytest.mark.parametrize(
    "ceiling, key, value",
    [
        ("copy", "best_bandwidth_bytes_per_s", 9.9e12),
        ("matmul", "flop_rate_per_s", 2e15),
    ],
    ids=["copy", "matmul"],
)
def test_a_ceiling_above_the_datasheet_is_impossible(root, ceiling, key, value):
    data = on("NVIDIA H200", valid())
    data["ceilings"][ceiling][key] = value
    write(root, data)
    field = f"ceilings.{ceiling}.{key}"
    assert refused(root).startswith(f"{SHOWN}: field '{field}': impossible: ")


def test_a_row_already_marked_implausible_is_kept_not_refused(root):
    # The runner keeps what it flagged; the page shows it as flagged, no time.
    data = on("NVIDIA H200", valid())
    timed(data["rows"][5], 1.2e9 / 9.9e12 * 1e3)
    data["rows"][5]["status"] = "implausible"
    write(root, data)
    assert len(load_results(root / "results" / "bench", root)) == 1


def test_an_unknown_device_or_an_h200_nvl_gets_no_sxm_datasheet_check(root):
    data = on("NVIDIA H200 NVL", valid())
    timed(data["rows"][5], 1.2e9 / 4.9e12 * 1e3)
    data["ceilings"]["copy"]["best_bandwidth_bytes_per_s"] = 5e12  # its own probe
    write(root, data)
    assert len(load_results(root / "results" / "bench", root)) == 1


# --------------------------------------------------------------------------
# Files that are not what they claim: nesting, size, directories, symlinks
# --------------------------------------------------------------------------


def test_a_200000_deep_array_is_refused_before_parsing(root):
    data = valid()
    data["rows"][0]["shape"] = {"deep": "@"}
    text = json.dumps(data).replace('"@"', "[" * 200_000 + "]" * 200_000)
    write(root, text)
    assert refused(root) == f"{SHOWN}: nested more than 32 levels deep"


def test_a_file_over_the_size_limit_is_refused(root):
    text = json.dumps(valid())
    write(root, text + " " * (MAX_BYTES - len(text) + 1))
    assert refused(root) == f"{SHOWN}: larger than {MAX_BYTES >> 20} MiB"
    assert bench_pages  # and so never copied into the site: nothing loads


def test_a_directory_named_json_is_refused(root):
    (root / "results" / "bench" / "x.json").mkdir()
    assert refused(root) == "results/bench/x.json: not a regular file"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_symlink_to_dev_zero_is_refused_without_reading_it(root):
    (root / "results" / "bench" / "z.json").symlink_to("/dev/zero")
    assert refused(root) == "results/bench/z.json: not a regular file"


def test_a_symlink_to_a_valid_file_is_refused_too(root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "gpu.json"
    shutil.copy(FIXTURES / "gpu_valid.json", outside)
    (root / "results" / "bench" / "link.json").symlink_to(outside)
    assert refused(root) == "results/bench/link.json: not a regular file"


# --------------------------------------------------------------------------
# What is shown: escaped text, and paths only under bench/
# --------------------------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"
LINK = "[x](javascript:alert(1))"


def test_html_and_markdown_from_a_file_are_shown_escaped(root):
    data = valid()
    data["device"]["name"] = f"GPU {SCRIPT} {LINK}"
    data["software"]["torch"] = SCRIPT
    data["ceilings"]["matmul"]["dtype"] = SCRIPT
    data["identity"]["commit"] = f"`{SCRIPT}"
    for row in data["rows"]:
        row["shape_text"] = f"{SCRIPT} $\\frac$ {LINK}"
    data["rows"][5]["flags"] = [SCRIPT]
    data["rows"][4].update(status="incorrect", reason=LINK)
    data["shape_errors"] = [
        {"kernel": "fixture_add", "shape_text": SCRIPT, "error": LINK}
    ]
    data["kernels"]["fixture_add"]["eager_is"] = SCRIPT
    write(root, data)
    folder = root / "results" / "bench"
    shown = [
        bench_pages.kernel_results("fixture_add", results_dir=folder, root=root),
        bench_pages.all_results(results_dir=folder, root=root),
    ]
    for text in shown:
        assert "<script" not in text and "](javascript" not in text
        assert "&lt;script&gt;" in text
    table, notes = shown[0].split("Notes recorded with this run:")
    assert "| &lt;script&gt;alert(1)&lt;/script&gt; $&#92;frac$ " in table
    assert "bfloat16, triton: &lt;script&gt;alert(1)&lt;/script&gt;\n" in notes
    assert "&#91;x&#93;(javascript:alert(1))" in notes
    # The plot draws the same labels as text ("$" is not mathtext) and the
    # SVG writer escapes them.
    svg = bench_plot.site_files(folder, root)["bench/fixture_add.svg"]
    assert b"<script" not in svg and b"&lt;script&gt;" in svg


def test_site_files_stay_under_the_bench_folder(root):
    write(root, valid())
    files = bench_plot.site_files(root / "results" / "bench", root)
    assert files and all(path.startswith("bench/") for path in files)
    assert all(".." not in Path(path).parts for path in files)


@pytest.mark.parametrize("name", ["../x", "..", "a/b", "/etc/x", ".hidden", ""])
def test_a_site_path_from_an_unsafe_name_is_refused(name):
    with pytest.raises(ResultFileError, match="not a safe name"):
        bench_plot.plot_site_path(name)
