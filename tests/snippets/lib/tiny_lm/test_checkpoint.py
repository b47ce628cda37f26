"""The committed educational checkpoint loads and reproduces its recorded
held-out loss; saving and loading round-trip; bad files are refused."""

import hashlib
import json
import pickle

import pytest
import torch

from scripts.tiny_lm.__main__ import TRAIN_LIMIT_SECONDS
from snippets.lib.tiny_lm import checkpoint as ckpt
from snippets.lib.tiny_lm import model as tlm

RESULTS = ckpt.RESULTS


@pytest.fixture(scope="module")
def record():
    return json.loads((RESULTS / "run.json").read_text())


@pytest.fixture(autouse=True)
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_committed_files_are_the_ones_the_record_names(record):
    assert sha256(RESULTS / "checkpoint.pt") == record["checkpoint_sha256"]
    assert sha256(RESULTS / "corpus.txt") == record["corpus_sha256"]
    corpus = json.loads((RESULTS / "corpus.json").read_text())
    assert corpus["sha256"] == record["corpus_sha256"]
    assert (RESULTS / "checkpoint.pt").stat().st_size < 5 * 2**20


def test_committed_checkpoint_reproduces_the_recorded_heldout_loss(record):
    model = ckpt.load_checkpoint(RESULTS / "checkpoint.pt")
    assert model.config == record["config"]
    corpus = (RESULTS / "corpus.txt").read_text(encoding="utf-8")
    _, heldout_ids = tlm.split_corpus(corpus, record["heldout_fraction"])
    loss = tlm.heldout_loss(model, heldout_ids)
    assert loss == pytest.approx(record["heldout_loss_final"], abs=1e-4)


def test_the_recorded_run_learned_and_fit_the_time_limit(record):
    # The bar: well below the loss at initialisation, trained in at
    # most two minutes of CPU wall time on two threads.
    assert record["heldout_loss_final"] < 0.5 * record["heldout_loss_initial"]
    assert (
        record["train_loss_last_steps_mean"] < 0.5 * (record["train_loss_first_step"])
    )
    # The page says the run used two threads on a two-core CPU.
    assert record["torch_threads"] == 2 and record["cpu_count"] == 2
    assert record["train_wall_seconds"] <= TRAIN_LIMIT_SECONDS


def test_save_and_load_round_trip(tmp_path):
    torch.manual_seed(0)
    model = tlm.TinyLM(context=8, width=16, heads=2, layers=1)
    digest = ckpt.save_checkpoint(model, tmp_path / "m.pt")
    assert digest == sha256(tmp_path / "m.pt")
    restored = ckpt.load_checkpoint(tmp_path / "m.pt")
    assert restored.config == model.config
    ids = torch.randint(0, 256, (2, 8))
    with torch.no_grad():
        assert torch.equal(restored(ids), model(ids))


def test_load_names_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^path .*nothing\.pt"):
        ckpt.load_checkpoint(tmp_path / "nothing.pt")


def test_load_refuses_a_file_that_is_not_a_checkpoint(tmp_path):
    torch.save({"weights": {}}, tmp_path / "half.pt")
    with pytest.raises(ValueError, match=r"^path .*half\.pt"):
        ckpt.load_checkpoint(tmp_path / "half.pt")


class _Payload:
    """Stands in for a tampered file: unpickling it would call a function."""

    def __reduce__(self):
        return (print, ("code ran on load",))


def test_load_refuses_to_unpickle_code(tmp_path):
    torch.save({"config": _Payload(), "weights": {}}, tmp_path / "evil.pt")
    with pytest.raises(pickle.UnpicklingError):
        ckpt.load_checkpoint(tmp_path / "evil.pt")
