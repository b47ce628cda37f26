"""Issue 37's must-show: hostile result files, each as a reader would
contribute it, through the loader and every page function the build calls.

For every case, one of two things, and the same through contribute:

* refused: one line (no traceback, no newline) naming the file and the
  field; contribute refuses naming the same field and copies nothing;
* shown escaped: every page function renders it, and nothing the file says
  survives as HTML, Markdown, attr_list, a shortcode or a placeholder.

Nothing is written outside the test's own folders, and no committed file
changes (checked once for the module with git). Two full strict builds, one
with a hostile file that is shown and one with a file that is refused, are in
``test_a_strict_build``; everything else runs the loader and the pages
directly, so the module stays fast.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from evidence import ROOT, ResultFileError, sha256_bytes
from evidence.benchmarks import load_results
from scripts.bench import contribute as contribute_tool
from scripts.site import bench_pages, gpu_status
from snippets.tiled_matmul import measurement

FIXTURES = Path(__file__).parents[1] / "scripts" / "site" / "fixtures" / "bench"
SHOWN = "results/bench/hostile.json"

# Everything a page could read as markup, short enough for a device name.
PAYLOAD = '<b onclick=x>B</b>[l](javascript:x){: #i onclick="y"}<!-- run: a.py -->'
MARKUP = ("<b onclick", "</b>", "](javascript", "{:", "<!--", 'onclick="', "onclick=x")
# Placeholders and an include behind a newline: allowed only in messages.
MESSAGE = (
    'why\n--8<-- "README.md"\n<!-- diagram: snippets/lib/wave_figure.py:x() "a" -->'
    "\n:warning: `code` *em* | pipe {: .x }"
)


@pytest.fixture(scope="module", autouse=True)
def committed_files_stay_as_they_are():
    def status() -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked=all"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    before = status()
    yield
    assert status() == before, "a hostile file changed the checkout"


@pytest.fixture
def root(tmp_path):
    """A checkout with the fixture kernels (and a matmul), their catalog and
    results/bench/."""
    (tmp_path / "kernels").mkdir()
    for name in ("fixture_add.py", "fixture_mm.py", "matmul.py"):
        (tmp_path / "kernels" / name).write_text("# fixture\n")
    (tmp_path / "results" / "bench").mkdir(parents=True)
    catalog = json.loads((FIXTURES / "catalog" / "kernels.json").read_text())
    catalog["kernels"]["matmul"] = copy.deepcopy(catalog["kernels"]["fixture_mm"])
    (tmp_path / "results" / "kernels.json").write_text(json.dumps(catalog))
    return tmp_path


def valid(name: str = "gpu_valid.json") -> dict:
    return json.loads((FIXTURES / name).read_text())


def h200(data: dict) -> dict:
    data["device"].update(
        name="NVIDIA H200", sm_count=132, memory_bytes=150 * 10**9, l2_bytes=50 << 20
    )
    return data


def timed(row: dict, ms: float) -> None:
    row.update(median_ms=ms, p20_ms=ms, p80_ms=ms, samples_ms=[ms])


def as_matmul(data: dict) -> dict:
    """The fixture's matmul-like kernel under the name the lesson reads."""
    data["kernels"]["matmul"] = data["kernels"].pop("fixture_mm")
    for row in data["rows"]:
        if row["kernel"] == "fixture_mm":
            row["kernel"] = "matmul"
    return data


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def in_every_printed_field(data: dict) -> dict:
    for key in ("python", "torch", "triton", "torch_cuda", "driver"):
        data["software"][key] = PAYLOAD
    data["device"]["name"] = PAYLOAD
    data["kernels"]["fixture_add"]["eager_is"] = PAYLOAD
    data["kernels"]["fixture_mm"]["r_baselines"] = [PAYLOAD]
    data["ceilings"]["matmul"]["dtype"] = PAYLOAD[:32]
    data["ceilings"]["datasheet"] = {
        "bandwidth_bytes_per_s": 4.8e12,
        "bf16_dense_flop_per_s": 9.9e14,
        "source": PAYLOAD,
    }
    for row in data["rows"]:
        row.update(shape_text=PAYLOAD, dtype="x" + PAYLOAD[:30], labels=[PAYLOAD[:60]])
    data["rows"][8]["device_kernels"] = [PAYLOAD]
    data["rows"][5]["flags"] = [MESSAGE]
    data["rows"][4].update(status="incorrect", reason=MESSAGE, timed=False)
    data["shape_errors"] = [
        {"kernel": "fixture_add", "shape_text": PAYLOAD, "error": MESSAGE}
    ]
    return data


def edit(function):
    """A case built from the GPU fixture by ``function(data)``."""

    def build():
        data = valid()
        function(data)
        return data

    return build


def _matmul_without_k(data):
    as_matmul(data)
    for row in data["rows"]:
        if row["kernel"] == "matmul":
            row["shape"].pop("K")


def _no_eager_rows(data):
    data["rows"] = [r for r in data["rows"] if r["provider"] != "eager"]


def _cpu_as_gpu(kind_too: bool):
    def build():
        data = valid("cpu_valid.json")
        data["identity"]["device_kind"] = "cuda"
        if kind_too:
            data["device"]["kind"] = "cuda"
        return data

    return build


# (case id, build the hostile file, the field a refusal names; None: shown)
CASES = [
    ("injection-in-every-printed-field", edit(in_every_printed_field), None),
    (
        "include-and-placeholders-in-a-message",
        edit(lambda d: d["rows"][4].update(status="error", error=MESSAGE)),
        None,
    ),
    ("no-eager-rows", edit(_no_eager_rows), None),
    (
        "cyrillic-look-alike",
        edit(lambda d: d["device"].update(name="NVIDIA \u041d200")),
        "device.name",
    ),
    (
        "right-to-left-override",
        edit(lambda d: d["device"].update(name="NVIDIA H200\u202e")),
        "device.name",
    ),
    (
        "zero-width-space",
        edit(lambda d: d["device"].update(name="NVIDIA H\u200b200")),
        "device.name",
    ),
    (
        "lone-surrogate",
        edit(lambda d: d["software"].update(torch="2.1\ud800")),
        "software.torch",
    ),
    (
        "newline-and-include-in-a-name",
        edit(lambda d: d["rows"][0].update(shape_text='x\n--8<-- "README.md"')),
        "rows[0].shape_text",
    ),
    (
        "attr-list-look-alike-brace",
        edit(lambda d: d["rows"][0].update(dtype="bf16\uff5b: onclick=x \uff5d")),
        "rows[0].dtype",
    ),
    (
        "two-megabyte-device-name",
        edit(lambda d: d["device"].update(name="A" * 2_000_000)),
        "device.name",
    ),
    (
        "megabyte-reason",
        edit(lambda d: d["rows"][4].update(status="incorrect", reason="r" * 10**6)),
        "rows[4].reason",
    ),
    (
        "faster-than-its-own-copy-probe",
        edit(lambda d: timed(d["rows"][5], 1.2e9 / 2e12 * 1e3)),
        "rows[5].median_ms",
    ),
    (
        "faster-than-the-h200-datasheet",
        edit(
            lambda d: h200(d)["ceilings"]["copy"].update(
                best_bandwidth_bytes_per_s=9e12
            )
        ),
        "ceilings.copy.best_bandwidth_bytes_per_s",
    ),
    (
        "unknown-device-at-a-petabyte-per-second",
        edit(
            lambda d: d["ceilings"]["copy"].update(
                bandwidth_bytes_per_s=1e15, best_bandwidth_bytes_per_s=1e15
            )
        ),
        "ceilings.copy.bandwidth_bytes_per_s",
    ),
    (
        "b200-with-an-h200s-figures",
        edit(lambda d: h200(d)["device"].update(name="NVIDIA B200", l2_bytes=None)),
        "device.name",
    ),
    (
        "h200-with-another-sm-count",
        edit(lambda d: h200(d)["device"].update(sm_count=100)),
        "device.sm_count",
    ),
    (
        "not-a-uuid",
        edit(lambda d: d["device"].update(uuid="<script>")),
        "device.uuid",
    ),
    ("cpu-run-with-its-kind-changed", _cpu_as_gpu(False), "device.kind"),
    ("cpu-run-with-both-kinds-changed", _cpu_as_gpu(True), "settings.timer"),
    (
        "started-in-2099",
        edit(lambda d: d["identity"].update(started_utc="2099-01-01T00:00:00Z")),
        "identity.started_utc",
    ),
    (
        "finished-before-it-started",
        edit(lambda d: d["identity"].update(finished_utc="2020-01-01T00:00:00Z")),
        "identity.finished_utc",
    ),
    ("matmul-rows-without-k", edit(_matmul_without_k), None),
]


def render_everything(folder: Path, root: Path, plots: bool = False) -> str:
    """What the build prints from the folder (check_pages draws the rest:
    captions, the matmul reading, and with ``plots`` the plots)."""
    bench_pages.check_pages(folder, root, plots=plots)
    kernels = sorted({k for r in load_results(folder, root) for k in r.data["kernels"]})
    texts = [
        bench_pages.kernel_results(
            k, "reference/benchmarks/", results_dir=folder, root=root
        )
        for k in kernels
    ]
    texts.append(bench_pages.all_results(results_dir=folder, root=root))
    texts.append(", ".join(gpu_status.gpu_status(folder, root)["devices"]))
    texts.append(measurement.reading(results_dir=folder, root=root))
    return "\n".join(texts)


def assert_inert(text: str) -> None:
    for markup in MARKUP:
        assert markup not in text, markup
    assert ":warning:" not in text
    assert not any(line.lstrip().startswith("--8<--") for line in text.split("\n"))
    assert "README" not in text or 'README.md"' not in text.replace("&quot;", "")


def one_line(error: ResultFileError) -> str:
    message = str(error)
    assert "\n" not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize("case, build, field", CASES, ids=[c[0] for c in CASES])
def test_a_hostile_file_is_refused_by_name_or_shown_inert(
    root, tmp_path_factory, case, build, field
):
    data = build()
    raw = json.dumps(data, ensure_ascii=True)  # "\ud800" stays a lone surrogate
    folder = root / "results" / "bench"
    (folder / "hostile.json").write_text(raw)
    before = files_under(root)
    # The build's answer.
    if field is None:  # the plots' text is checked once, for every field
        plots = case == "injection-in-every-printed-field"
        assert_inert(render_everything(folder, root, plots))
    else:
        with pytest.raises(ResultFileError) as refused:
            render_everything(folder, root)
        assert one_line(refused.value).startswith(f"{SHOWN}: field '{field}'")
    assert files_under(root) == before
    # Contribute's answer, for the same bytes from outside the checkout.
    (folder / "hostile.json").unlink()
    outside = tmp_path_factory.mktemp("incoming") / "run.json"
    outside.write_text(raw)
    if data["identity"]["device_kind"] == "cpu":
        return  # a CPU file is refused by contribute as a CPU run
    if field is None:
        target = contribute_tool.contribute(outside, folder, root)
        assert target.read_bytes() == raw.encode() and target.parent == folder
    else:
        with pytest.raises(ResultFileError) as refused:
            contribute_tool.contribute(outside, folder, root)
        assert f": field '{field}'" in one_line(refused.value)
        assert list(folder.iterdir()) == []


def test_a_second_file_of_the_same_run_is_refused_whatever_its_bytes(
    root, tmp_path_factory
):
    folder = root / "results" / "bench"
    real = h200(valid())
    (folder / "a-real.json").write_text(json.dumps(real))
    faster = copy.deepcopy(real)  # re-serialised, every time changed
    for row in faster["rows"]:
        if row.get("timed"):
            timed(row, row["median_ms"] * 1.5)
    (folder / "z-faster.json").write_text(json.dumps(faster, indent=3))
    with pytest.raises(ResultFileError) as refused:
        load_results(folder, root)
    assert one_line(refused.value) == (
        "results/bench/z-faster.json: field 'identity': the same run (commit, "
        "start, profile, device) as a-real.json; one file per run"
    )
    (folder / "z-faster.json").unlink()
    outside = tmp_path_factory.mktemp("incoming") / "run.json"
    outside.write_text(json.dumps(faster))
    with pytest.raises(ResultFileError, match="field 'identity': the same run"):
        contribute_tool.contribute(outside, folder, root)
    assert [p.name for p in folder.iterdir()] == ["a-real.json"]


def test_a_variant_of_a_known_device_is_not_taken_for_an_impostor(root):
    data = h200(valid())
    data["device"]["name"] = "NVIDIA H200 NVL"  # 132 SMs, 141 GB, its own part
    (root / "results" / "bench" / "nvl.json").write_text(json.dumps(data))
    assert len(load_results(root / "results" / "bench", root)) == 1


def test_one_uuid_is_one_device(root):
    folder = root / "results" / "bench"
    uuid = "0123abcd-0123-4567-89ab-0123456789ab"
    first = valid()
    first["device"]["uuid"] = uuid
    (folder / "a.json").write_text(json.dumps(first))
    second = copy.deepcopy(first)
    second["device"]["name"] = "Another GPU"
    second["identity"]["started_utc"] = "2025-02-01T00:00:00+00:00"
    second["identity"]["finished_utc"] = None
    (folder / "b.json").write_text(json.dumps(second))
    with pytest.raises(ResultFileError) as refused:
        load_results(folder, root)
    assert one_line(refused.value).startswith(
        "results/bench/b.json: field 'device.uuid'"
    )


def test_an_old_commit_cannot_claim_todays_kernels(root):
    def git(*args):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "kernels")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old")
    old = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    data = valid()
    data["identity"].update(commit=old, dirty=False)
    data["kernels"]["fixture_add"]["sources"] = {
        "kernels/fixture_add.py": sha256_bytes(b"# today's kernel\n")
    }
    folder = root / "results" / "bench"
    (folder / "hostile.json").write_text(json.dumps(data))
    with pytest.raises(ResultFileError) as refused:
        load_results(folder, root)
    assert one_line(refused.value).startswith(
        f"{SHOWN}: field 'kernels.fixture_add.sources': kernels/fixture_add.py at "
        f"commit {old[:12]}"
    )
    # The hashes the commit does have are accepted.
    data["kernels"]["fixture_add"]["sources"] = {
        "kernels/fixture_add.py": sha256_bytes(b"# fixture\n")
    }
    data["kernels"]["fixture_mm"]["sources"] = {
        "kernels/fixture_mm.py": sha256_bytes(b"# fixture\n")
    }
    (folder / "hostile.json").write_text(json.dumps(data))
    assert len(load_results(folder, root)) == 1


def test_contribute_says_one_line_for_a_hostile_file(root, capsys, monkeypatch):
    outside = root / "incoming.json"
    outside.write_text(json.dumps(edit(lambda d: d["device"].update(name="\u202e"))()))
    monkeypatch.setattr(contribute_tool, "ROOT", root)
    code = contribute_tool.main(
        [str(outside), "--results", str(root / "results/bench")]
    )
    err = capsys.readouterr().err
    assert code == contribute_tool.EXIT_REFUSED
    assert err.count("\n") == 1 and "field 'device.name'" in err


def test_matmul_rows_without_a_shape_are_not_measured(root):
    folder = root / "results" / "bench"
    (folder / "hostile.json").write_text(json.dumps(edit(_matmul_without_k)()))
    text = measurement.reading(results_dir=folder, root=root)
    assert "4 of the file's rows name no M, N and K shape" in text


def test_the_lesson_prints_a_hostile_name_inert():
    data = as_matmul(h200(valid()))
    data["device"]["name"] = PAYLOAD
    data["software"]["torch"] = PAYLOAD
    data["rows"][9].update(status="incorrect", reason=MESSAGE, timed=False)
    assert_inert(measurement.reading_of(data))


def test_a_strict_build_shows_a_hostile_file_inert_or_refuses_it_by_name(tmp_path):
    """Two real builds of a one-page site whose page reads a hostile folder
    through the matmul lesson (a build takes seconds: this is the must-show
    that the hooks, not only the page functions, keep data inert; the page
    names no bench_pages insert, so the build draws no plots)."""
    from tests.site.sitebuild import run_build, variant_config

    root = tmp_path / "checkout"
    (root / "kernels").mkdir(parents=True)
    for name in ("fixture_add.py", "fixture_mm.py", "matmul.py"):
        (root / "kernels" / name).write_text("# fixture\n")
    folder = root / "results" / "bench"
    folder.mkdir(parents=True)
    catalog = json.loads((FIXTURES / "catalog" / "kernels.json").read_text())
    catalog["kernels"]["matmul"] = copy.deepcopy(catalog["kernels"]["fixture_mm"])
    (root / "results" / "kernels.json").write_text(json.dumps(catalog))
    data = as_matmul(in_every_printed_field(valid()))
    data["rows"][9].update(status="incorrect", reason=MESSAGE, timed=False)
    (folder / "hostile.json").write_text(json.dumps(data))
    call = f'reading(results_dir="{folder}", root="{root}")'
    body = f"<!-- insert: snippets/tiled_matmul/measurement.py:{call} -->\n"
    site = tmp_path / "site"
    page = f"---\naccess: free\n---\n\n# T\n\n{body}"
    config = variant_config(tmp_path, {"index.md": page})
    result = run_build(config, site)
    assert result.returncode == 0, result.stderr[-2000:]
    html = (site / "index.html").read_text()
    assert "&lt;b onclick" in html and "<b onclick" not in html
    assert 'onclick="y"' not in html and "diagram-slot" not in html
    readme = (ROOT / "README.md").read_text().splitlines()[0].lstrip("# ")
    assert readme not in html  # the include in a message was never pasted
    assert not (root / "site").exists() and not (site / "bench").exists()
    (folder / "hostile.json").write_text(
        json.dumps(edit(lambda d: d["device"].update(name="NVIDIA \u041d200"))())
    )
    result = run_build(config, site)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if "hostile.json" in line]
    assert errors and "field 'device.name'" in errors[0], result.stderr[-2000:]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "pad, message",
    [
        ("samples", "more than 150000 values; a bench file is far smaller"),
        ("bytes", "larger than 4 MiB for a bench file"),
    ],
)
def test_a_padded_file_is_refused_before_it_is_validated(root, pad, message):
    """Validation is what a build pays per value: a file padded with numbers
    (or with white space) is refused by a count, before any parsing."""
    data = valid()
    if pad == "samples":
        data["rows"][0]["samples_ms"] = [1.0] * 160_000
        text = json.dumps(data)
    else:
        text = json.dumps(data) + " " * (4 * 2**20)
    (root / "results" / "bench" / "hostile.json").write_text(text)
    with pytest.raises(ResultFileError) as refused:
        load_results(root / "results" / "bench", root)
    assert one_line(refused.value) == f"{SHOWN}: {message}"
