"""The steps of the GPU run, as data: name, command on a GPU, command for a
dry run on the CPU, and a time limit. Commands are argument lists (no shell);
``{py}`` is this Python and ``{out}`` the output folder."""

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
    # Optional steps run only when their module exists (a later issue adds it).
    needs_module: str = ""


# Cheapest evidence first: values, then verdicts, then sanitizers, then
# speed, then the serving engine's per-step times.
STEPS: tuple[Step, ...] = (
    Step(
        "kernel-tests",
        "the kernel tests on CUDA tensors, interpreter off (make test-gpu)",
        # Eight workers: most of the time is Triton compiling each launch
        # configuration on the CPU, and the GPU machine has sixteen cores.
        gpu=(
            "{py}",
            "-m",
            "pytest",
            "tests/kernels",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "8",
            "--dist",
            "worksteal",
            "--junitxml={out}/kernel-tests.xml",
        ),  # fmt: skip
        dry=(
            "{py}",
            "-m",
            "pytest",
            "tests/kernels/test_launches.py",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--junitxml={out}/kernel-tests.xml",
        ),
        limit_s=100,
        gpu_env={"KERNEL_DEVICE": "cuda", "TRITON_INTERPRET": "0"},
        env={"TRITON_INTERPRET": "1"},
    ),
    Step(
        "qualify",
        "the evaluator on CUDA: the project's kernel",
        gpu=(
            "{py}",
            "-m",
            "scripts.qualify",
            "kernels/residual_add_relu.py",
            "--device",
            "cuda",
            "--json",
            "{out}/qualify/residual_add_relu.cuda.json",
        ),
        dry=(
            "{py}",
            "-m",
            "scripts.qualify",
            "kernels/residual_add_relu.py",
            "--json",
            "{out}/qualify/residual_add_relu.cpu.json",
        ),
        limit_s=40,
    ),
    Step(
        "qualify-corpus",
        "the evaluator on CUDA: the shipped broken corpus and the good ones",
        gpu=(
            "{py}",
            "-m",
            "scripts.qualify.refresh",
            "corpus",
            "--device",
            "cuda",
            "--out",
            "{out}/qualify",
        ),
        dry=("{py}", "-m", "scripts.qualify.refresh", "--help"),
        limit_s=45,
    ),
    Step(
        "sanitize",
        "Compute Sanitizer on the planted bugs and the project's kernels",
        # One run per tool and case, each starting Python, torch and Triton
        # under the tool: memcheck and initcheck first, a short timeout each.
        gpu=(
            "{py}",
            "-m",
            "scripts.sanitize",
            "--out",
            "{out}/sanitizer",
            "--tools",
            "memcheck",
            "initcheck",
            "racecheck",
            "--timeout",
            "25",
        ),
        dry=("{py}", "-m", "scripts.sanitize", "--dry-run", "--out", "{out}/sanitizer"),
        limit_s=80,
        needs_module="scripts/sanitize/__main__.py",
    ),
    Step(
        "bench",
        "the full benchmark profile, with the copy and read-only probes",
        gpu=(
            "{py}",
            "-m",
            "scripts.bench",
            "--profile",
            "full",
            "--no-progress",
            "--out",
            "{out}/bench",
        ),
        dry=(
            "{py}",
            "-m",
            "scripts.bench",
            "--device",
            "cpu",
            "--profile",
            "tiny",
            "--no-progress",
            "--out",
            "{out}/bench",
            "reduction",
        ),
        limit_s=170,
    ),
    Step(
        "bench-compare",
        "the qualification comparison: eager, compiled, custom at three shapes",
        gpu=(
            "{py}",
            "-m",
            "scripts.bench",
            "--profile",
            "compare",
            "--no-progress",
            "--out",
            "{out}/bench",
            "residual_add_relu",
        ),
        dry=("{py}", "-m", "scripts.bench", "--list"),
        limit_s=40,
    ),
    Step(
        "serving",
        "the serving engine's per-step times, for the capacity simulator",
        gpu=(
            "{py}",
            "-m",
            "scripts.serving",
            "--device",
            "cuda",
            "--out",
            "{out}/serving",
        ),
        dry=("{py}", "-m", "scripts.serving", "--dry-run", "--out", "{out}/serving"),
        limit_s=35,
        needs_module="scripts/serving/__main__.py",
    ),
    Step(
        "inductor",
        "the Triton source torch.compile writes for residual add + ReLU",
        gpu=(
            "{py}",
            "-m",
            "snippets.when_torch_compile_is_enough.inductor_code",
            "--write",
            "--device",
            "cuda",
            "--out",
            "{out}/inductor",
        ),
        dry=(
            "{py}",
            "-m",
            "snippets.when_torch_compile_is_enough.inductor_code",
        ),
        limit_s=30,
    ),
)
