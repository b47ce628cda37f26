"""The strict formats of the files the sandboxed child writes back
(scripts/qualify/records.py): every broken rule is a RecordError naming the
file, never a traceback or an unpickled object."""

import json
import os
import pickle

import pytest
import torch

from scripts.qualify import records
from scripts.qualify.records import RecordError


def bundle(tmp_path, tensors=None):
    path = tmp_path / "case-0.qt"
    records.write_tensors(path, tensors or {"c1.out": torch.arange(6.0).view(2, 3)})
    return path


def rewrite_header(path, change):
    data = path.read_bytes()
    size = int.from_bytes(data[8:16], "little")
    header = json.loads(data[16 : 16 + size])
    change(header)
    new = json.dumps(header).encode()
    path.write_bytes(
        data[:8] + len(new).to_bytes(8, "little") + new + data[16 + size :]
    )


def test_tensors_round_trip_bit_for_bit(tmp_path):
    nan = torch.tensor([float("nan"), -0.0, 1e-40], dtype=torch.float32)
    tensors = {
        "a": nan,
        "b": torch.ones(2, 0, 3, dtype=torch.bfloat16),
        "c": torch.arange(5, dtype=torch.float16)[::2],  # not contiguous
    }
    back = records.read_tensors(bundle(tmp_path, tensors))
    assert list(back) == ["a", "b", "c"]
    for name, tensor in tensors.items():
        assert back[name].dtype == tensor.dtype and back[name].shape == tensor.shape
        assert torch.equal(
            back[name].contiguous().view(torch.uint8),
            tensor.contiguous().view(torch.uint8),
        )


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda h: h["tensors"][0].update(dtype="object"), "unknown dtype"),
        (lambda h: h["tensors"][0].update(shape=[-1]), "bad shape"),
        (lambda h: h["tensors"][0].update(nbytes=4), "does not add up"),
        (lambda h: h["tensors"][0].update(offset=8), "does not add up"),
        (lambda h: h["tensors"][0].update(name="../x"), "bad or repeated"),
        (lambda h: h["tensors"][0].update(extra=1), "exactly"),
        (lambda h: h["tensors"].append(dict(h["tensors"][0])), "repeated"),
        (lambda h: h.update(more=1), "nothing else"),
    ],
)
def test_a_header_that_breaks_a_rule_is_named(tmp_path, change, says):
    path = bundle(tmp_path)
    rewrite_header(path, change)
    with pytest.raises(RecordError, match=says) as caught:
        records.read_tensors(path)
    assert caught.value.file == "case-0.qt"


def test_truncated_padded_and_foreign_files_are_record_errors(tmp_path):
    path = bundle(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:-4])
    with pytest.raises(RecordError, match="ends early|past the data|add up"):
        records.read_tensors(path)
    path.write_bytes(data + b"\0")
    with pytest.raises(RecordError, match="1 bytes past the data"):
        records.read_tensors(path)
    path.write_bytes(pickle.dumps({"c1.out": torch.ones(1)}))
    with pytest.raises(RecordError, match="magic"):
        records.read_tensors(path)
    path.write_bytes(records.MAGIC + (1 << 40).to_bytes(8, "little"))
    with pytest.raises(RecordError, match="declares a header"):
        records.read_tensors(path)
    path.write_bytes(records.MAGIC + (3).to_bytes(8, "little") + b"\xff\xfe{")
    with pytest.raises(RecordError, match="not JSON"):
        records.read_tensors(path)


def test_a_symlink_or_fifo_is_not_followed(tmp_path):
    target = bundle(tmp_path)
    link = tmp_path / "final.qt"
    link.symlink_to(target)
    with pytest.raises(RecordError, match="plain file"):
        records.read_tensors(link)
    fifo = tmp_path / "fifo.qt"
    os.mkfifo(fifo)
    with pytest.raises(RecordError, match="not a plain file"):
        records.read_tensors(fifo)  # does not block
    with pytest.raises(RecordError, match="over the"):
        records.read_tensors(target, limit=8)


def claim():
    launch = {
        "kernel": "k",
        "own": True,
        "grid": [1, 1, 1],
        "violation": None,
        "programs_run": True,
        "writes_output": True,
        "compiled": True,
        "compile_error": None,
    }
    output = {
        "plain": True,
        "type": "Tensor",
        "shape": [4],
        "dtype": "torch.float32",
        "device": "cpu",
        "aliases": [],
    }
    call = {
        "raised": None,
        "launches": [launch],
        "input_device": "cpu",
        "output": output,
        "inputs_written": [],
    }
    return {"name": "size-1", "seconds": 0.5, "calls": [call]}


def test_claims_round_trip_and_are_checked_key_by_key(tmp_path):
    path = tmp_path / "case-0.json"
    records.write_claim(path, claim())
    assert records.read_claim(path, "case") == claim()
    for breaks, says in [
        (lambda c: c["calls"][0].update(extra=1), "other keys"),
        (lambda c: c["calls"][0]["launches"][0].update(own="yes"), "not a bool"),
        (lambda c: c.update(seconds=float("nan")), "not a float"),
        (lambda c: c["calls"][0]["launches"][0].update(grid=[1.5]), "not a int"),
        (lambda c: c.update(calls={}), "not a list"),
    ]:
        value = claim()
        breaks(value)
        path.write_text(json.dumps(value))
        with pytest.raises(RecordError, match=says):
            records.read_claim(path, "case")
    path.write_bytes(b"\x80garbage")
    with pytest.raises(RecordError, match="not JSON"):
        records.read_claim(path, "status")
    path.write_text("[" * 100_000)
    with pytest.raises(RecordError, match="not JSON"):
        records.read_claim(path, "status")


def test_progress_lines_are_checked(tmp_path):
    path = tmp_path / "progress"
    assert records.read_progress(path) == []
    path.write_text("import\nstart 0\nend 0\nstart 1")  # last line unfinished
    assert records.read_progress(path) == ["import", "start 0", "end 0"]
    path.write_text("import\nend 99999999\n")
    with pytest.raises(RecordError, match="unexpected line"):
        records.read_progress(path)
    path.write_bytes(b"import\n\xff\n")
    with pytest.raises(RecordError, match="not ASCII"):
        records.read_progress(path)
