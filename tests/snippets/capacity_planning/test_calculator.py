import pytest

from snippets.capacity_planning.calculator import replicas_needed


def test_littles_law_by_hand():
    # 10 req/s x (0.1 + 9 x 0.1) s = 10 in flight; 4 x 0.5 = 2 per replica.
    assert replicas_needed(10.0, 100.0, 100.0, 10, 4, 8, 0.5) == (
        "10.0 requests in flight (1.00 s each), 4 per replica (batch limit): 5 replicas"
    )
    assert replicas_needed(1.0, 100.0, 10.0, 1, 8, 8).endswith(": 1 replica")


def test_kv_memory_binds_before_the_batch_limit():
    # KV memory for 2 sequences: 10 in flight / (2 x 0.5) = 10 replicas.
    text = replicas_needed(10.0, 100.0, 100.0, 10, 4, 2, 0.5)
    assert text.endswith("2 per replica (KV memory): 10 replicas")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(requests_per_s=0.0), "requests_per_s"),
        (dict(tpot_ms=-1.0), "tpot_ms"),
        (dict(output_tokens=0), "output_tokens"),
        (dict(max_batch=0), "max_batch"),
        (dict(kv_sequences=0), "kv_sequences"),
        (dict(headroom=1.5), "headroom"),
    ],
)
def test_bad_input_names_the_argument(kwargs, name):
    args = dict(
        requests_per_s=1.0,
        ttft_ms=1.0,
        tpot_ms=1.0,
        output_tokens=1,
        max_batch=1,
        kv_sequences=1,
    )
    with pytest.raises(ValueError, match=name):
        replicas_needed(**{**args, **kwargs})
