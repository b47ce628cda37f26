"""Save and load the tiny language model's educational checkpoint.

The notebook docs/start/tiny-language-model.ipynb shows these definitions in
its cells (`python -m scripts.tiny_lm` copies them there); the tests load the
committed checkpoint with the same code. Run this file to sample from it.
"""

import hashlib
import json
from pathlib import Path

import torch

from snippets.lib.tiny_lm.model import (
    TinyLM,
    heldout_loss,
    sample,
    split_corpus,
)

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "results" / "tiny_lm"


def save_checkpoint(model, path):
    """Write the model's shape settings and weights; return the file's
    sha256 so a run record can name exactly which file it describes."""
    torch.save({"config": model.config, "weights": model.state_dict()}, path)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_checkpoint(path):
    """Rebuild the model from a checkpoint written by save_checkpoint.
    weights_only=True refuses to unpickle anything but tensors and plain
    containers, so a tampered file cannot run code on load."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"path {path} is not a file")
    saved = torch.load(path, weights_only=True)
    if not isinstance(saved, dict) or set(saved) != {"config", "weights"}:
        raise ValueError(
            f"path {path} holds no checkpoint: expected a dict with keys "
            f"'config' and 'weights'"
        )
    model = TinyLM(**saved["config"])
    model.load_state_dict(saved["weights"])
    return model.eval()


if __name__ == "__main__":
    # One thread: the model is tiny, and a second thread only waits on a
    # busy machine's other work (30 times slower under load).
    torch.set_num_threads(1)
    record = json.loads((RESULTS / "run.json").read_text())
    model = load_checkpoint(RESULTS / "checkpoint.pt")
    corpus = (RESULTS / "corpus.txt").read_text(encoding="utf-8")
    _, held_out = split_corpus(corpus, record["heldout_fraction"])
    print(f"held-out loss {heldout_loss(model, held_out):.4f} nats/byte")
    print(f"recorded      {record['heldout_loss_final']:.4f} nats/byte")
    generator = torch.Generator().manual_seed(0)
    print(sample(model, "The ", 200, generator))
