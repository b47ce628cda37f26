"""snippets/backward_kernel/traffic.py: the pass counts, checked against
what autograd dispatches, and the artifact readings."""

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from snippets.backward_kernel import traffic as t

VIEWS = {"aten.expand.default", "aten.detach.default", "aten.view.default"}


class Recorder(TorchDispatchMode):
    """(op, row-sized inputs, row-sized outputs) for every kernel dispatched."""

    def __init__(self, shape):
        super().__init__()
        self.shape, self.kernels = shape, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if str(func) not in VIEWS:
            full = [a for a in args if isinstance(a, torch.Tensor)]
            reads = sum(tuple(a.shape) == self.shape for a in full)
            self.kernels.append((str(func), reads, int(out.shape == self.shape)))
        return out


def record_backward(softmax, shape=(4, 8)):
    x = torch.randn(shape, requires_grad=True)
    y, dy = softmax(x), torch.randn(shape)
    recorder = Recorder(shape)
    with recorder:
        torch.autograd.grad(y, x, dy)
    return recorder.kernels


def composite(x):
    e = torch.exp(x - x.amax(-1, keepdim=True).detach())
    return e / e.sum(-1, keepdim=True)


def counts(kernels):
    return [(r, w) for _, r, w in kernels]


def test_eager_composite_matches_autograd():
    recorded = record_backward(composite)
    assert counts(recorded) == counts(t.EAGER_COMPOSITE)
    assert t.passes(t.EAGER_COMPOSITE) == (8, 11, 7)


def test_torch_softmax_backward_is_one_fused_kernel():
    (kernel,) = record_backward(lambda x: torch.softmax(x, -1))
    assert kernel == ("aten._softmax_backward_data.default", 2, 1)
    assert counts([kernel]) == counts(t.FUSED_BACKWARD)


def test_a_missing_kernel_is_caught():
    assert counts(record_backward(composite)) != counts(t.EAGER_COMPOSITE[1:])


def test_bytes_by_hand():
    assert t.bytes_moved(t.FUSED_BACKWARD, 10, 100, 2) == 3 * 10 * 100 * 2
    assert t.bytes_moved(t.FORWARD, 10, 100, 4) == 2 * 10 * 100 * 4


def test_the_artifact_has_two_loads_per_store_and_no_exponential():
    back = t.per_thread(t.BACKWARD_BUILD)
    # 16 bf16 values per thread: two 16-byte loads of y, two of dy, two stores.
    assert back["elements"] * 2 == 2 * t.wide_access_bytes(t.BACKWARD_BUILD)
    assert (back["loads"], back["stores"], back["exp2"]) == (4, 2, 0)
    assert back["spills"] == 0
    assert t.per_thread(t.FORWARD_BUILD)["exp2"] == back["elements"]


def test_narrow_loads_are_refused(monkeypatch):
    entry = {"sass_opcodes": {"LDG.E.64": 8}}
    monkeypatch.setattr(t.artifacts, "build", lambda op, name: entry)
    with pytest.raises(ValueError, match="expected only LDG.E.128"):
        t.wide_access_bytes("any")


def test_facts():
    facts = t.facts()
    assert facts["eager-ratio"] == "6" and facts["backward-over-forward"] == "1.5"
    assert facts["fused-bytes"] == "768 MiB"  # 3 * 32768 * 4096 * 2 bytes


def test_exercise_by_hand():
    answer = t.bytes_exercise()
    assert answer["fused"] == 3 * 4096 * 1000 * 4 == 49_152_000
    assert answer["eager"] == 18 * 4096 * 1000 * 4 == 6 * answer["fused"]
    assert t.facts()["ex1.fused"] == "49,152,000 bytes"


def test_the_forward_agrees_with_the_kernels_own_cost_model():
    from kernels.softmax import versions as softmax

    assert t.bytes_moved(t.FORWARD, 7, 1000, 2) == softmax.bytes_moved(7, 1000, 2)
