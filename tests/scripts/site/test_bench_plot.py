"""The plot module: a plot that cannot be drawn is one line naming its file
(the drawing itself: tests/scripts/site/test_bench_pages.py)."""

import json
import shutil
from pathlib import Path

import pytest

from evidence import ResultFileError
from evidence.benchmarks import load_results
from scripts.site import bench_plot

FIXTURES = Path(__file__).parent / "fixtures" / "bench"


def test_a_failed_plot_names_the_file_not_a_traceback(tmp_path, monkeypatch):
    (tmp_path / "kernels").mkdir()
    for name in ("fixture_add.py", "fixture_mm.py"):
        (tmp_path / "kernels" / name).write_text("# fixture\n")
    folder = tmp_path / "results" / "bench"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "catalog" / "kernels.json", tmp_path / "results")
    (folder / "gpu.json").write_text(
        json.dumps(json.loads((FIXTURES / "gpu_valid.json").read_text()))
    )

    def broken(result, kernel):
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(bench_plot, "render_svg", broken)
    result = load_results(folder, tmp_path)[0]
    with pytest.raises(ResultFileError) as refused:
        bench_plot.plot_or_refuse(result, "fixture_add", tmp_path)
    message = str(refused.value)
    assert message.startswith("results/bench/gpu.json: the plot of fixture_add")
    assert "UnicodeEncodeError" in message and "\n" not in message
    with pytest.raises(ResultFileError, match="results/bench/gpu.json: the plot"):
        bench_plot.site_files(folder, tmp_path)


def test_the_dark_plot_swaps_ink_and_legend_face_but_keeps_the_series():
    light = (
        b'<path style="fill: #ffffff"/><text style="fill: #000000">x</text>'
        b'<path style="stroke: #1f77b4"/><path style="stroke: #666666"/>'
    )
    dark = bench_plot.dark_variant(light).decode()
    assert "#000000" not in dark and "#ffffff" not in dark and "#666666" not in dark
    assert "#1f77b4" in dark  # a series keeps its colour
    assert bench_plot.plot_site_path("k", dark=True) == "bench/k-dark.svg"
