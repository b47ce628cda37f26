"""The steps of the GPU run, as data: name, command on a GPU, command for a
dry run on the CPU, a time limit, and whether the first run needs it.

Commands are argument lists (no shell); ``{py}`` is this Python and ``{work}``
the working folder the step writes into. A dry run runs the same tools, the
same code paths, on small inputs on the CPU: only the device and the sizes
differ, so what breaks on the device breaks in CI first.

The order is the value of what a step brings back if the lease ends early:
values on the device, the benchmark's goal shapes, the comparison, one
qualification and the Inductor capture are required (360 s together); the
serving step times, Compute Sanitizer and the corpus follow while time is
left.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    name: str
    what: str
    gpu: tuple[str, ...]
    dry: tuple[str, ...]
    limit_s: int  # on the GPU; a dry step gets the same limit
    env: dict[str, str] = field(default_factory=dict)
    gpu_env: dict[str, str] = field(default_factory=dict)
    # Required steps keep their own limit whatever ran before them; optional
    # ones run only on the time the required ones left.
    required: bool = True
    # Optional steps run only when their module exists (a later issue adds it).
    needs_module: str = ""


def _pytest(*args: str) -> tuple[str, ...]:
    return ("{py}", "-m", "pytest", "-q", "-p", "no:cacheprovider", *args)


def _bench(*args: str) -> tuple[str, ...]:
    return (
        "{py}",
        "-m",
        "scripts.bench",
        "--no-progress",
        "--out",
        "{work}/bench",
        *args,
    )


# The Inductor capture compiles one pointwise kernel: starting Inductor's pool
# of compile workers would cost more than the compile.
ONE_COMPILE_THREAD = {"TORCHINDUCTOR_COMPILE_THREADS": "1"}

STEPS: tuple[Step, ...] = (
    Step(
        "kernel-tests",
        "the kernel tests on CUDA tensors, interpreter off (make test-gpu)",
        # Eight workers: most of the time is Triton compiling each launch
        # configuration on the CPU, and the GPU machine has sixteen cores.
        gpu=_pytest(
            "tests/kernels", "-n", "8", "--dist", "worksteal",
            "--junitxml={work}/kernel-tests.xml",
        ),
        dry=_pytest(
            "tests/kernels/test_launches.py", "-p", "no:xdist",
            "--junitxml={work}/kernel-tests.xml",
        ),
        limit_s=90,
        gpu_env={"KERNEL_DEVICE": "cuda", "TRITON_INTERPRET": "0"},
        env={"TRITON_INTERPRET": "1"},
    ),
    Step(
        "bench",
        "the full benchmark profile, every kernel's goal shapes first",
        gpu=_bench("--profile", "full"),
        dry=_bench("--device", "cpu", "--profile", "tiny", "reduction", "transpose"),
        limit_s=130,
    ),
    Step(
        "bench-compare",
        "the qualification comparison: eager, compiled, custom at three shapes",
        gpu=_bench("--profile", "compare", "residual_add_relu"),
        dry=_bench("--device", "cpu", "--profile", "compare", "residual_add_relu"),
        limit_s=40,
    ),
    Step(
        "qualify",
        "the evaluator on CUDA: the project's kernel",
        gpu=(
            "{py}", "-m", "scripts.qualify", "kernels/residual_add_relu.py",
            "--device", "cuda", "--json", "{work}/qualify/residual_add_relu.cuda.json",
        ),
        dry=(
            "{py}", "-m", "scripts.qualify", "kernels/residual_add_relu.py",
            "--json", "{work}/qualify/residual_add_relu.cpu.json",
        ),
        limit_s=60,
    ),
    Step(
        "inductor",
        "the Triton source torch.compile writes for residual add + ReLU",
        gpu=(
            "{py}", "-m", "snippets.when_torch_compile_is_enough.inductor_code",
            "--write", "--device", "cuda", "--out", "{work}/inductor",
        ),
        dry=(
            "{py}", "-m", "snippets.when_torch_compile_is_enough.inductor_code",
            "--write", "--device", "cpu", "--out", "{work}/inductor",
        ),
        limit_s=40,
        env=ONE_COMPILE_THREAD,
    ),
    Step(
        "serving",
        "the serving engine's per-step times, for the capacity simulator",
        gpu=(
            "{py}", "-m", "scripts.serving", "--device", "cuda",
            "--out", "{work}/serving",
        ),
        dry=("{py}", "-m", "scripts.serving", "--dry-run", "--out", "{work}/serving"),
        limit_s=30,
        required=False,
        needs_module="scripts/serving/__main__.py",
    ),
    Step(
        "sanitize",
        "Compute Sanitizer: the five runs that carry the lesson, one file after each",
        gpu=(
            "{py}", "-m", "scripts.sanitize", "--plan", "device",
            "--out", "{work}/sanitizer", "--timeout", "25",
        ),
        dry=(
            "{py}", "-m", "scripts.sanitize", "--plan", "device", "--dry-run",
            "--out", "{work}/sanitizer",
        ),
        limit_s=60,
        required=False,
        needs_module="scripts/sanitize/__main__.py",
    ),
    Step(
        "qualify-corpus",
        "the evaluator on CUDA: the shipped broken corpus and the good ones",
        # The candidates whose catch a GPU can change, written after each.
        gpu=(
            "{py}", "-m", "scripts.qualify.refresh", "corpus", "--device", "cuda",
            "--out", "{work}/qualify", "--device-subset",
        ),
        dry=(
            "{py}", "-m", "scripts.qualify.refresh", "corpus",
            "--out", "{work}/qualify", "--only",
            "snippets/triton_qualification/broken_nan_to_zero.py",
            "tests/scripts/qualify/candidates/broken/python_helper_in_kernel.py",
        ),
        limit_s=45,
        required=False,
    ),
)  # fmt: skip
