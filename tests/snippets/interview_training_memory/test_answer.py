"""The fine-tune budget, checked against the lesson's model by hand."""

from snippets.interview_training_memory import answer as a


def test_model_state_is_sixteen_bytes_a_parameter():
    parts = a.per_gpu("selective")
    params = (parts["weights"]) / 2
    assert parts["optimizer"] == 12 * params and parts["gradients"] == 2 * params


def test_what_fits():
    assert not a.fits(a.per_gpu("selective"))
    assert a.fits(a.per_gpu("full"))
    assert a.fits(a.per_gpu("selective", 1, 8))
    assert a.per_gpu("selective", 3, 8)["total"] < a.per_gpu("selective", 1, 8)["total"]


def test_facts():
    f = a.facts()
    assert f["answer.bytes_per_param"] == "16"
    assert f["answer.full_fits"] == "fits"


def test_the_parts_the_page_shows_add_up_to_its_totals():
    # audit F15: the working set (logits, the recomputed layer) is a part
    from snippets.interview_training_memory import answer as a

    sel, full = a.per_gpu("selective"), a.per_gpu("full")
    state = sel["weights"] + sel["gradients"] + sel["optimizer"]
    logits = a.working("selective")["logits"]
    assert sel["total"] == state + sel["activations"] + logits
    recomputed = a.working("full")["recomputed layer"]
    assert full["total"] == state + full["activations"] + recomputed + logits
