"""The inference lesson's diagram: prefill and decode steps of Llama-3 8B
placed on the H200's roofline by their weight intensity."""

from kernels.devices import H200
from snippets.inference_budgets.budget import ridge_point, weight_intensity
from snippets.lib.diagrams import (
    ACCENT,
    INK,
    MUTED,
    PHONE_WIDTH_IN,
    SECOND,
    figure,
    plain_log_ticks,
    style_axes,
)

DECODE_BATCHES = (1, 8, 64)
PREFILL_TOKENS = 2048


def attainable(intensity: float) -> float:
    """Roofline: FLOP/s an op of this intensity can reach at most."""
    return min(H200.bf16_dense_flop_per_s, intensity * H200.hbm_bytes_per_s)


def prefill_decode_roofline():
    """Log-log roofline with one point per decode batch and one prefill."""
    fig = figure(PHONE_WIDTH_IN, 3.9)  # fits a phone's column unscrolled
    ax = fig.add_subplot()
    style_axes(ax, grid=True)
    xs = [2 ** (k / 4) for k in range(-4, 57)]
    ax.plot(xs, [attainable(x) / 1e12 for x in xs], color=INK, linewidth=1.5)
    ridge = ridge_point()
    ax.axvline(ridge, color=MUTED, linestyle=":", linewidth=1)
    ax.text(ridge, 2, f" ridge {ridge:.0f}", color=INK, va="bottom")
    for batch in DECODE_BATCHES:
        x = weight_intensity(batch)
        ax.plot([x], [attainable(x) / 1e12], "o", color=SECOND)
        ax.annotate(
            f"decode, batch {batch}",
            (x, attainable(x) / 1e12),
            textcoords="offset points",
            xytext=(6, -12),
            color=INK,
        )
    x = weight_intensity(PREFILL_TOKENS)
    ax.plot([x], [attainable(x) / 1e12], "s", color=ACCENT)
    ax.annotate(
        f"prefill, {PREFILL_TOKENS} tokens",
        (x, attainable(x) / 1e12),
        textcoords="offset points",
        xytext=(-60, -18),
        color=INK,
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_ticks(ax.xaxis, [1, 16, 256, 4096])
    plain_log_ticks(ax.yaxis, [10, 100, 1000])
    ax.set_xlabel("FLOPs per byte of weights read (bf16)")
    ax.set_ylabel("TFLOP/s at most")
    ax.set_title("H200 roofline: decode sits\non the bandwidth slope")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    fig = prefill_decode_roofline()
    print(f"{len(fig.axes[0].lines)} lines and points on the roofline")
