"""Inputs in sealed, read-only memory (scripts/qualify/shared_inputs.py)."""

import mmap
import os
import textwrap

import pytest
import torch

import evidence as results
from scripts.qualify import evaluator, shared_inputs
from scripts.qualify.builders import Call, tensor_spec
from scripts.qualify.refresh import CORPUS_TIMEOUT_S
from snippets.kernel_correctness_contracts import adversarial as adv


def _values(shape, start=0.0):
    return torch.arange(start, start + torch.Size(shape).numel()).reshape(shape)


def _call(x_layout, r_layout, **kw):
    return Call("values", tensor_spec(x_layout), tensor_spec(r_layout), **kw)


def test_the_parents_memfd_cannot_be_written_or_mapped_writable():
    packer, _ = shared_inputs.pack(
        [[_call(adv.contiguous(_values((8,))), adv.contiguous(_values((8,))))]]
    )
    fd = packer.sealed_fd()
    try:
        with pytest.raises(PermissionError):
            os.pwrite(fd, b"\x00", 0)
        with pytest.raises(PermissionError):
            mmap.mmap(fd, mmap.PAGESIZE, mmap.MAP_SHARED, mmap.PROT_WRITE)
        with pytest.raises(PermissionError):
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)


def test_layouts_aliases_and_refills_survive_the_mapping():
    x = _values((5, 7))
    shared = _values((4, 6), 100.0)
    first = _call(adv.with_offset(x, 3, _values((9,), -9.0)), adv.transposed(x))
    aliased = Call("values", tensor_spec(adv.contiguous(shared)))
    aliased.residual = aliased.x  # both inputs views of one storage
    refill = Call("values", reuse="refill", refill=(shared + 1, shared + 1))
    packer, specs = shared_inputs.pack([[first], [aliased, refill]])
    regions = [s["base"] for s in (specs[0][0]["x"], specs[1][0]["x"])]
    assert all(r["offset"] % mmap.PAGESIZE == 0 for r in regions)
    assert specs[1][0]["x"]["base"] is specs[1][0]["residual"]["base"]
    fd = packer.sealed_fd()
    try:
        mapped = shared_inputs.Mapped(fd)
    finally:
        os.close(fd)
    spec = specs[0][0]["x"]
    view = mapped.tensor(spec["base"]).as_strided(
        spec["size"], spec["stride"], spec["offset"]
    )
    assert torch.equal(view, x)  # the offset layout, read from the mapping
    base = mapped.tensor(specs[1][0]["x"]["base"])
    address = base.data_ptr()
    mapped.move(specs[1][1]["refill"][0], base)
    assert base.data_ptr() == address and torch.equal(
        base.reshape(-1), (shared + 1).reshape(-1)
    )


def test_a_write_to_an_input_is_a_fault_reported_as_inputs_changed(tmp_path):
    # Known-wrong candidate: zeroes x in place (on every case it reaches).
    path = tmp_path / "writes_input.py"
    path.write_text(
        textwrap.dedent(
            """
            import torch

            def residual_add_relu(x, residual):
                if not (torch.is_tensor(x) and torch.is_tensor(residual)):
                    raise TypeError("x and residual must be tensors")
                x.zero_()
                return torch.relu(x + residual)
            """
        )
    )
    sha = results.sha256_bytes(path.read_bytes())
    verdict = evaluator.qualify(path, reviewed=sha, timeout_s=CORPUS_TIMEOUT_S)
    first = verdict["first_failure"]
    assert first["check"] == "inputs-unchanged"
    assert "mapped read-only" in first["detail"] and "SIGSEGV" in first["detail"]
