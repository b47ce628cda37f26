"""Wrong for this track: the solution's file beside this one is loaded by
its path, so no import names it; its kernel, not one in this file, stores.
Mistake: foreign."""

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent


def vector_add(x, y, out):
    spec = importlib.util.spec_from_file_location("other", HERE / "solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.vector_add(x, y, out)
