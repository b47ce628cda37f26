"""What torch.compile generated for residual add + ReLU, read from a capture.

The capture (results/inductor/residual_add_relu.<device>.json) holds the
source Inductor wrote, with the torch version, device, shape and date. On a
CPU Inductor writes C++; on a GPU it writes Triton. Regenerate with
``python -m snippets.when_torch_compile_is_enough.inductor_code --write``
(``--device cuda`` on a GPU machine, which the GPU run does).
"""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "results" / "inductor"
KERNEL = ROOT / "kernels" / "residual_add_relu.py"
SHAPE = (257, 1031)  # the qualification comparison's awkward middle shape


def capture_path(device: str, folder: Path = CAPTURES) -> Path:
    return folder / f"residual_add_relu.{device}.json"


def capture(device: str = "cpu") -> dict:
    """Compile residual add + ReLU and return Inductor's source with its
    identity (imports torch: run it as a script, never from the build)."""
    import torch
    from torch._inductor.utils import run_and_get_code

    def residual_add_relu(x, residual):
        return torch.relu(x + residual)

    x = torch.randn(SHAPE, device=device)
    residual = torch.randn(SHAPE, device=device)
    _, codes = run_and_get_code(torch.compile(residual_add_relu), x, residual)
    return {
        "torch": torch.__version__,
        "device": device,
        "device_name": torch.cuda.get_device_name() if device == "cuda" else "CPU",
        "shape": list(SHAPE),
        "dtype": "float32",
        "captured_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "code": codes[0],
    }


def load(device: str = "cpu", folder: Path = CAPTURES) -> dict | None:
    path = capture_path(device, folder)
    return json.loads(path.read_text()) if path.is_file() else None


# --8<-- [start:main-and-tail]
VECTOR_LANES = 16  # float32 lanes in one 512-bit vector register


def main_and_tail(numel: int, vector: int = VECTOR_LANES) -> tuple[int, int]:
    """Elements covered by full vectors of `vector` lanes, and the rest.

    Inductor's CPU loop steps 16 float32 lanes at a time (one 512-bit
    register) and finishes the last partial vector with a masked load."""
    if numel < 1:
        raise ValueError(f"numel must be >= 1, got {numel}")
    if vector < 1:
        raise ValueError(f"vector must be >= 1, got {vector}")
    main = numel // vector * vector
    return main, numel - main


# --8<-- [end:main-and-tail]


def loop_bounds(code: str) -> tuple[int, int]:
    """(numel, end of the full-vector part) as the generated loop states them."""
    numel = re.search(r"x0<static_cast<int64_t>\((\d+)L\)", code)
    main = re.search(r"x0 < static_cast<int64_t>\((\d+)L\)\)\)\s*\n\s*\{", code)
    if not numel or not main:
        raise ValueError("the capture has no vectorised loop with a tail")
    return int(numel[1]), int(main[1])


#: The steps of one element's work, as each source spells them.
STEPS = {
    "load x": (r"loadu\(in_ptr0", r"tl\.load\(x_ptr"),
    "load residual": (r"loadu\(in_ptr1", r"tl\.load\(residual_ptr"),
    "add": (r"tmp0 \+ tmp1", r"x\.to\(tl\.float32\) \+ residual"),
    "clamp at zero": (r"clamp_min\(tmp2", r"tl\.where\(total < 0"),
    "store": (r"\.store\(out_ptr0", r"tl\.store\(out_ptr"),
}


def step_lines(code: str, kernel_source: str) -> list[tuple[str, str, str]]:
    """(step, Inductor's line, our kernel's line) for each step, first match."""
    rows = []
    for step, (inductor_re, ours_re) in STEPS.items():
        found = []
        for source, pattern in ((code, inductor_re), (kernel_source, ours_re)):
            line = next(
                (ln.strip() for ln in source.splitlines() if re.search(pattern, ln)),
                None,
            )
            if line is None:
                raise ValueError(f"no line for {step!r} matches {pattern!r}")
            found.append(line)
        rows.append((step, *found))
    return rows


def comparison_table() -> str:
    """The line-by-line table the page shows, from the committed capture."""
    data = load()
    if data is None:
        return "No capture is committed yet (run this file with `--write`).\n"
    rows = step_lines(data["code"], KERNEL.read_text())
    lines = ["| Step | Inductor (CPU, C++) | kernels/residual_add_relu.py |"]
    lines.append("| --- | --- | --- |")
    for step, theirs, ours in rows:
        lines.append(f"| {step} | `{_cell(theirs)}` | `{_cell(ours)}` |")
    return "\n".join(lines) + "\n"


def _cell(line: str) -> str:
    line = line if len(line) <= 70 else line[:67] + "..."
    return line.replace("|", "\\|")


def facts() -> dict[str, str]:
    """Every value the page states about the committed CPU capture."""
    data = load()
    numel = data["shape"][0] * data["shape"][1]
    main, tail = main_and_tail(numel)
    return {
        "capture.torch": f"{data['torch']}",
        "capture.date": f"{data['captured_utc'][:10]}",
        "capture.shape": "×".join(map(str, data["shape"])),
        "capture.numel": f"{numel:,}",
        "capture.main": f"{main:,}",
        "capture.tail": f"{tail}",
        "capture.lanes": str(VECTOR_LANES),
    }


def main(argv: list[str]) -> None:
    if "--write" in argv:
        device = argv[argv.index("--device") + 1] if "--device" in argv else "cpu"
        folder = Path(argv[argv.index("--out") + 1]) if "--out" in argv else CAPTURES
        folder.mkdir(parents=True, exist_ok=True)
        path = capture_path(device, folder)
        path.write_text(json.dumps(capture(device), indent=1) + "\n")
        print(f"wrote {path}")
        return
    data = load()
    numel = data["shape"][0] * data["shape"][1]
    given = facts()
    print(
        f"capture: torch {given['capture.torch']} on the CPU, captured "
        f"{given['capture.date']}, shape {given['capture.shape']}"
    )
    print(f"generated loop: {loop_bounds(data['code'])} (numel, end of full vectors)")
    print(f"main and tail at {VECTOR_LANES} lanes: {main_and_tail(numel)}")
    for step, theirs, ours in step_lines(data["code"], KERNEL.read_text()):
        print(f"{step:>14}: {theirs[:40]:<40} | {ours[:40]}")


if __name__ == "__main__":
    main(sys.argv[1:])
