"""tl.dot on e4m3 tiles compiles to an FP8 wgmma with a float32 accumulator,
and the page names that instruction.

It compiles once in a subprocess with the real JIT (the suite runs under the
interpreter), about a second and a half on the CPU: the only way to check the
page's instruction against the compiler rather than against memory.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "kernels" / "matrix-multiplication" / "fp8-on-tensor-cores.md"


def test_the_fp8_dot_is_an_e4m3_wgmma_into_float32_and_the_page_says_so():
    env = dict(os.environ, TRITON_INTERPRET="0")
    result = subprocess.run(
        [sys.executable, "-m", "snippets.fp8_on_tensor_cores.fp8_dot"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: a busy machine compiles slowly
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (instruction,) = result.stdout.split()
    assert instruction.endswith(".f32.e4m3.e4m3")
    assert f"`{instruction}`" in PAGE.read_text(encoding="utf-8")
