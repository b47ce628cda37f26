"""The tiny language model's pieces: tokenizer, batches, attention, model,
optimizer, training loop, held-out loss, sampling, activation counting."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from snippets.lib.tiny_lm import model as tlm


@pytest.fixture(autouse=True)
def _one_thread():
    # Two pytest workers share two cores: one thread each avoids the
    # barrier stalls that oversubscribed OpenMP threads suffer.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def small_model(seed=0, **shape):
    torch.manual_seed(seed)
    sizes = dict(context=8, width=16, heads=2, layers=1) | shape
    return tlm.TinyLM(**sizes)


# ---------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    "text", ["", "a", "plain ASCII", "×÷ and 漢字", "emoji 🙂 at the end"]
)
def test_encode_decode_round_trip(text):
    ids = tlm.encode(text)
    assert ids == list(text.encode("utf-8"))
    assert all(0 <= i < 256 for i in ids)
    assert tlm.decode(ids) == text


def test_decode_replaces_broken_utf8_instead_of_failing():
    broken = tlm.encode("×")[:1]  # first byte of a two-byte character
    assert tlm.decode(broken) == "\ufffd"


# ------------------------------------------------------------------ batches


def test_split_corpus_keeps_the_last_fraction_back():
    text = "abcdefghij" * 10
    train_ids, heldout_ids = tlm.split_corpus(text, 0.1)
    assert train_ids.numel() == 90 and heldout_ids.numel() == 10
    assert tlm.decode(heldout_ids.tolist()) == text[90:]


@pytest.mark.parametrize("fraction", [0, 1, -0.5, 1.5])
def test_split_corpus_rejects_a_fraction_outside_0_1(fraction):
    with pytest.raises(ValueError, match=r"^heldout_fraction "):
        tlm.split_corpus("some text", fraction)


def test_get_batch_targets_are_inputs_shifted_by_one():
    ids = torch.arange(100)
    g = torch.Generator().manual_seed(3)
    inputs, targets = tlm.get_batch(ids, 5, 7, g)
    assert inputs.shape == targets.shape == (5, 7)
    assert torch.equal(targets, inputs + 1)  # consecutive ids
    assert int(inputs.min()) >= 0 and int(targets.max()) <= 99


def test_get_batch_rejects_text_shorter_than_a_window():
    g = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match=r"^token_ids "):
        tlm.get_batch(torch.arange(9), 2, 8, g)


# ---------------------------------------------------------------- attention


@pytest.mark.parametrize("time_steps", [1, 5, 17])
def test_causal_attention_matches_torch_sdpa(time_steps):
    torch.manual_seed(time_steps)
    q, k, v = (torch.randn(2, 3, time_steps, 8) for _ in range(3))
    ours = tlm.causal_attention(q, k, v)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(ours, ref, rtol=1e-5, atol=1e-6)


def _future_leaks(model):
    """True if changing a later byte changes the logits of an earlier one."""
    ids = torch.randint(0, 256, (1, 8), generator=torch.Generator().manual_seed(1))
    changed = ids.clone()
    changed[0, 6] = (changed[0, 6] + 1) % 256
    with torch.no_grad():
        before, after = model(ids), model(changed)
    return not torch.equal(before[:, :6], after[:, :6])


def test_the_model_never_sees_the_future():
    assert not _future_leaks(small_model())


def test_the_causality_check_catches_attention_without_a_mask(monkeypatch):
    def unmasked(q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return scores.softmax(dim=-1) @ v

    monkeypatch.setattr(tlm, "causal_attention", unmasked)
    assert _future_leaks(small_model())


def test_attention_rejects_a_width_heads_do_not_divide():
    with pytest.raises(ValueError, match=r"^width "):
        tlm.CausalSelfAttention(10, 4)


# -------------------------------------------------------------------- model


def test_model_shapes_and_initial_loss_near_an_even_guess():
    m = small_model()
    ids = torch.randint(0, 256, (4, 8), generator=torch.Generator().manual_seed(2))
    assert m(ids).shape == (4, 8, 256)
    assert m(ids[:, :3]).shape == (4, 3, 256)  # shorter windows are fine
    loss = tlm.next_token_loss(m, ids, ids).item()
    assert abs(loss - math.log(256)) < 1.0


def test_model_rejects_windows_longer_than_its_context():
    with pytest.raises(ValueError, match=r"^token_ids "):
        small_model()(torch.zeros(1, 9, dtype=torch.long))


# ---------------------------------------------------------------- optimizer


def _difference_from_adamw(optimizer_class):
    """Largest weight difference after six steps of `optimizer_class` and
    torch's AdamW fed the same weights and the same gradients, so only the
    update rule can differ. (Training two model copies side by side is no
    fair test: gradients that are zero in exact arithmetic, such as the key
    bias's, are rounding noise that Adam scales up to full-size steps.)"""
    torch.manual_seed(5)
    weights = [torch.randn(7, 3), torch.randn(11)]
    ours_params = [w.clone().requires_grad_() for w in weights]
    ref_params = [w.clone().requires_grad_() for w in weights]
    ours = optimizer_class(ours_params, lr=3e-3)
    ref = torch.optim.AdamW(
        ref_params, lr=3e-3, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.01
    )
    for _ in range(6):
        for a, b in zip(ours_params, ref_params, strict=True):
            grad = torch.randn_like(a) * 10 ** torch.randint(-3, 2, ()).item()
            a.grad, b.grad = grad.clone(), grad.clone()
        ours.step()
        ref.step()
    return max(
        (a - b).abs().max().item() for a, b in zip(ours_params, ref_params, strict=True)
    )


class _AdamWithoutBiasCorrection(tlm.Adam):
    """Known broken: forgets to undo the averages' pull towards zero."""

    @torch.no_grad()
    def step(self):
        beta1, beta2 = self.betas
        moments = zip(self.params, self.mean, self.square, strict=True)
        for p, mean, square in moments:
            mean.lerp_(p.grad, 1 - beta1)
            square.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            p.mul_(1 - self.lr * self.weight_decay)
            p.addcdiv_(mean, square.sqrt().add_(self.eps), value=-self.lr)


def test_adam_matches_torch_adamw_on_the_same_gradients():
    assert _difference_from_adamw(tlm.Adam) < 1e-6


def test_the_adam_check_catches_a_missing_bias_correction():
    assert _difference_from_adamw(_AdamWithoutBiasCorrection) > 1e-4


def test_adam_state_is_two_tensors_the_size_of_each_weight():
    m = small_model()
    opt = tlm.Adam(m.parameters(), lr=1e-3)
    for p, mean, square in zip(m.parameters(), opt.mean, opt.square, strict=True):
        assert mean.shape == square.shape == p.shape


# ----------------------------------------------------------- training loop


def test_training_lowers_the_loss_and_decays_the_learning_rate():
    m = small_model()
    ids = torch.tensor(tlm.encode("the cat sat on the mat. " * 20))
    opt = tlm.Adam(m.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(0)
    history = tlm.train(m, opt, ids, ids, 40, 8, g, eval_every=20)
    assert len(history["step_loss"]) == len(history["step_seconds"]) == 40
    assert [step for step, _ in history["heldout"]] == [0, 20, 40]
    assert history["heldout"][-1][1] < 0.5 * history["heldout"][0][1]
    assert opt.lr == pytest.approx(1e-2 / 40)  # the last step's rate
    assert all(s > 0 for s in history["step_seconds"])


def test_heldout_loss_is_deterministic_and_covers_full_windows():
    m = small_model()
    ids = torch.randint(0, 256, (8 * 5 + 3,), generator=torch.Generator())
    assert tlm.heldout_loss(m, ids) == tlm.heldout_loss(m, ids)
    # Only full windows count: the 2 trailing tokens change nothing.
    assert tlm.heldout_loss(m, ids) == tlm.heldout_loss(m, ids[: 8 * 5 + 1])
    with pytest.raises(ValueError, match=r"^token_ids "):
        tlm.heldout_loss(m, ids[:8])


class _AlwaysX(torch.nn.Module):
    """A stand-in model that puts nearly all probability on the byte "x"
    and records the window lengths it is shown."""

    config = {"context": 4}

    def __init__(self):
        super().__init__()
        self.seen = []

    def forward(self, token_ids):
        self.seen.append(token_ids.shape[1])
        logits = torch.full((*token_ids.shape, 256), -50.0)
        logits[..., ord("x")] = 50.0
        return logits


def test_sample_appends_exactly_the_requested_bytes_and_slides_its_window():
    stub = _AlwaysX()
    text = tlm.sample(stub, "abcdef", 5, torch.Generator().manual_seed(0))
    assert text == "abcdefxxxxx"
    assert stub.seen == [4] * 5  # never more than the context


def test_sample_is_reproducible_for_a_seed():
    m = small_model()
    first = tlm.sample(m, "ab", 20, torch.Generator().manual_seed(7))
    again = tlm.sample(m, "ab", 20, torch.Generator().manual_seed(7))
    other = tlm.sample(m, "ab", 20, torch.Generator().manual_seed(8))
    assert first == again and first.startswith("ab")
    assert other != first


# ------------------------------------------------------------- activations


def test_saved_activations_grow_with_the_batch():
    m = small_model()
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 256, (500,), generator=g)
    small = tlm.saved_activation_bytes(m, *tlm.get_batch(ids, 4, 8, g))
    large = tlm.saved_activation_bytes(m, *tlm.get_batch(ids, 8, 8, g))
    assert 1.9 < large / small < 2.1


def test_saved_activations_leave_out_the_weights():
    m = small_model()
    x = torch.zeros(4, 8, dtype=torch.long)
    everything = {}

    def pack(tensor):  # the same count, weights included
        everything[tensor.untyped_storage().data_ptr()] = (
            tensor.untyped_storage().nbytes()
        )
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        tlm.next_token_loss(m, x, x)
    # Every linear layer saves its weight for the backward pass.
    linear_weights = sum(
        mod.weight.numel() * 4 for mod in m.modules() if isinstance(mod, nn.Linear)
    )
    counted = tlm.saved_activation_bytes(m, x, x)
    assert sum(everything.values()) - counted >= linear_weights


def test_saved_activations_count_attention_scores():
    # The attention weights alone are batch x heads x time x time floats.
    m = small_model()
    x = torch.zeros(4, 8, dtype=torch.long)
    counted = tlm.saved_activation_bytes(m, x, x)
    assert counted > 4 * 2 * 8 * 8 * 4
