"""The worker's table of collectives covers every collective the model
knows (the worker itself runs in tests/scripts/collectives/test_main.py)."""

from types import SimpleNamespace

from scripts.collectives.worker import _ops
from snippets.lib.collectives import COLLECTIVES


def test_every_collective_has_an_op():
    fake_torch = SimpleNamespace(ones=lambda *a, **k: None, empty=lambda *a, **k: None)
    ops = _ops(SimpleNamespace(), fake_torch, "cpu", 2)
    assert tuple(ops) == COLLECTIVES
