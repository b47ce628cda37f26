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
    path = tmp_path / "case-0.safetensors"
    records.write_tensors(path, tensors or {"c1.out": torch.arange(6.0).view(2, 3)})
    return path


def rewrite_header(path, change):
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    change(header)
    new = json.dumps(header).encode()
    path.write_bytes(len(new).to_bytes(8, "little") + new + data[8 + size :])


def test_tensors_round_trip_bit_for_bit(tmp_path):
    nan = torch.tensor([float("nan"), -0.0, 1e-40], dtype=torch.float32)
    tensors = {
        "a": nan,
        "b": torch.ones(2, 0, 3, dtype=torch.bfloat16),
        "c": torch.arange(5, dtype=torch.float16)[::2],  # not contiguous
        "d": torch.tensor(3.0),
    }
    back = records.read_tensors(bundle(tmp_path, tensors))
    assert sorted(back) == ["a", "b", "c", "d"]
    for name, tensor in tensors.items():
        assert back[name].dtype == tensor.dtype and back[name].shape == tensor.shape
        assert torch.equal(
            back[name].reshape(-1).contiguous().view(torch.uint8),
            tensor.reshape(-1).contiguous().view(torch.uint8),
        )


def _entry(header):
    return header["c1.out"]


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda h: _entry(h).update(dtype="object"), "unknown dtype"),
        (lambda h: _entry(h).update(shape=[-1]), "not a valid bundle"),
        (lambda h: _entry(h).update(data_offsets=[0, 4]), "not a valid bundle"),
        (lambda h: _entry(h).update(data_offsets=[8, 32]), "not a valid bundle"),
        (lambda h: h.update({"../x": h["c1.out"]}), "bad tensor name"),
        (lambda h: h.update({"c2.out": h["c1.out"]}), "not a valid bundle"),
        (lambda h: h.update({"__metadata__": {"a": 1}}), "not a valid bundle"),
    ],
)
def test_a_header_that_breaks_a_rule_is_named(tmp_path, change, says):
    path = bundle(tmp_path)
    rewrite_header(path, change)
    with pytest.raises(RecordError, match=says) as caught:
        records.read_tensors(path)
    assert caught.value.file == "case-0.safetensors"


def test_truncated_padded_and_foreign_files_are_record_errors(tmp_path):
    path = bundle(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:-4])
    with pytest.raises(RecordError, match="not a valid bundle"):
        records.read_tensors(path)
    path.write_bytes(data + b"\0")
    with pytest.raises(RecordError, match="not a valid bundle"):
        records.read_tensors(path)
    path.write_bytes(pickle.dumps({"c1.out": torch.ones(1)}))
    with pytest.raises(RecordError, match="declares a header|not JSON"):
        records.read_tensors(path)
    path.write_bytes((1 << 40).to_bytes(8, "little"))
    with pytest.raises(RecordError, match="declares a header"):
        records.read_tensors(path)
    path.write_bytes((3).to_bytes(8, "little") + b"\xff\xfe{")
    with pytest.raises(RecordError, match="not JSON"):
        records.read_tensors(path)
    nested = b"[" * 100_000
    path.write_bytes(len(nested).to_bytes(8, "little") + nested)
    with pytest.raises(RecordError, match="not JSON"):
        records.read_tensors(path)


def test_a_symlink_or_fifo_is_not_followed(tmp_path):
    target = bundle(tmp_path)
    link = tmp_path / "final.safetensors"
    link.symlink_to(target)
    with pytest.raises(RecordError, match="plain file"):
        records.read_tensors(link)
    fifo = tmp_path / "fifo.safetensors"
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
        "tf32_dots": 0,
        "compiled": True,
        "compile_error": None,
        "specialisation": None,
    }
    output = {
        "plain": True,
        "type": "Tensor",
        "shape": [4],
        "dtype": "torch.float32",
        "device": "cpu",
        "aliases": [],
        "storage_nbytes": 16,
        "storage_offset": 0,
    }
    call = {
        "raised": None,
        "launches": [launch],
        "input_device": "cpu",
        "output": output,
        "inputs_written": [],
        "state_changed": [],
        "earlier_changed": [],
        "race": None,
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
        (lambda c: c["calls"][0].update(race={"kernel": "k"}), "other keys"),
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


def test_a_fault_note_is_one_of_its_words_or_nothing(tmp_path):
    allowed = ("input x", "elsewhere")
    note = tmp_path / "fault"
    note.write_text("input x\n")
    assert records.read_note(note, allowed) == "input x"
    note.write_text("input x; trust me\n")
    assert records.read_note(note, allowed) is None
    link = tmp_path / "link"
    link.symlink_to(note)
    assert records.read_note(link, allowed) is None  # not followed
    assert records.read_note(tmp_path / "missing", allowed) is None
