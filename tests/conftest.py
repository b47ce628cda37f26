"""Test setup shared by the whole suite.

Triton reads TRITON_INTERPRET when `@triton.jit` runs, so it is set here,
before any kernel module is imported. `make test-gpu` sets KERNEL_DEVICE=cuda
and TRITON_INTERPRET=0 to run the same kernel tests on a real GPU.
"""

import os

import pytest  # pytest imports no kernel, so the variable can follow it

# One thread for torch and NumPy in every worker and every process a test
# starts, before either is imported: the suite runs two workers on two cores,
# and a second OpenMP thread per worker only waits whenever the machine is
# busy (a tiny model's forward pass took 55 ms on two threads under load,
# 1.7 ms on one). A test that needs more sets it itself.
os.environ.setdefault("OMP_NUM_THREADS", "1")

KERNEL_DEVICE = os.environ.get("KERNEL_DEVICE", "cpu")
if KERNEL_DEVICE == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"
else:
    os.environ.setdefault("TRITON_INTERPRET", "0")


@pytest.fixture(scope="session")
def device() -> str:
    """Where kernel tests put their tensors: "cpu" (interpreter) or "cuda"."""
    return KERNEL_DEVICE


def pytest_collection_modifyitems(config, items):
    # The browser tests share one long survey of every page: start them
    # first, so under xdist one worker runs it while the other takes the rest
    # of the suite, instead of the survey starting last and running alone.
    items.sort(key=lambda item: item.get_closest_marker("browser") is None)
    # On a GPU run only kernel tests make sense; site and browser tests are
    # CPU-machine work.
    if KERNEL_DEVICE != "cpu":
        skip = pytest.mark.skip(reason="KERNEL_DEVICE=cuda runs kernel tests only")
        for item in items:
            if "tests/kernels" not in str(item.fspath).replace(os.sep, "/"):
                item.add_marker(skip)
