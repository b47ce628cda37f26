"""scripts/site/gpu_status.py: the Benchmarks page says once whether a GPU
result exists, from the committed files."""

import shutil
from pathlib import Path

from scripts.site.gpu_status import facts, gpu_status

FIXTURES = Path(__file__).parent / "fixtures" / "bench"
# The kernel files the fixtures' hashes describe (as in test_bench_pages.py).
KERNEL_TEXT = {
    "fixture_add.py": b"# fixture kernel, version 1\n",
    "fixture_mm.py": b"# fixture matmul\n",
}


def results_with(tmp_path, *names):
    folder = tmp_path / "results" / "bench"
    folder.mkdir(parents=True)
    (tmp_path / "kernels").mkdir()
    for name, text in KERNEL_TEXT.items():
        (tmp_path / "kernels" / name).write_bytes(text)
    shutil.copy(FIXTURES / "catalog" / "kernels.json", tmp_path / "results")
    for name in names:
        shutil.copy(FIXTURES / name, folder / name)
    return folder


def test_no_results_and_cpu_only_results_are_counted(tmp_path):
    empty = results_with(tmp_path)
    assert gpu_status(empty, tmp_path) == {"results": 0, "gpu": 0, "devices": []}
    shutil.copy(FIXTURES / "cpu_valid.json", empty / "cpu_valid.json")
    assert gpu_status(empty, tmp_path)["results"] == 1


def test_a_gpu_result_is_counted_and_its_device_named(tmp_path):
    folder = results_with(tmp_path, "cpu_valid.json", "gpu_valid.json")
    status = gpu_status(folder, tmp_path)
    assert (status["results"], status["gpu"]) == (2, 1)
    assert len(status["devices"]) == 1


def test_the_page_says_no_gpu_result_only_while_none_is_committed():
    assert facts()["gpu-results"] == "0", (
        "a GPU result is committed: rewrite the 'No GPU result has been "
        "committed yet' sentence of docs/reference/benchmarks.md"
    )
