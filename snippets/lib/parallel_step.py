"""The training step the "Beyond one GPU" lessons budget (taught in
docs/foundations/beyond-one-gpu/parallelism-budgets.md; the overlap lesson
uses it too). Standard library only, for the pages' calculators."""

from __future__ import annotations

from kernels.devices import H200

BF16 = 2  # bytes of a bf16 gradient, weight or activation element

#: One sequence of Llama-3's training length per micro-batch, and a share
#: of the H200's dense bf16 peak that a good large-model run sustains (an
#: assumption, not a measurement: the calculators let you change it).
SEQ_LEN = 8192
MICRO_BATCH = 1
ASSUMED_MFU = 0.4


# --8<-- [start:compute]
def compute_seconds(
    n_params: int, tokens: int, gpus: int, mfu: float = ASSUMED_MFU
) -> float:
    """Forward and backward take about 6 FLOPs per parameter per token
    (2 forward, 4 backward), spread evenly over `gpus` at `mfu` of peak.
    Attention's own FLOPs are left out, so long sequences take longer."""
    if not 0 < mfu <= 1:
        raise ValueError(f"mfu must lie in (0, 1], got {mfu!r}")
    return 6 * n_params * tokens / (gpus * mfu * H200.bf16_dense_flop_per_s)


# --8<-- [end:compute]
