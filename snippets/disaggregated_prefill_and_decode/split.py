"""Disaggregated prefill and decode: when splitting the phases onto
different GPUs pays, and what moving the KV cache between them costs
(docs/inference/disaggregated-prefill-and-decode.md).

Standard library only. The link figures, with their sources, are the
multi-GPU lessons' shared table (kernels/interconnects.py).
"""

from kernels.devices import H200
from kernels.interconnects import INFINIBAND_NDR, NVLINK4_H200, PCIE5_X16
from snippets.lib.batching import MODEL, kv_bytes_per_token

#: One direction of each link, bytes per second.
LINKS = {
    "NVLink 4 (one H200, one direction)": NVLINK4_H200.per_direction_bytes_per_s,
    "InfiniBand NDR, one 400 Gb/s port": INFINIBAND_NDR.per_direction_bytes_per_s,
    "PCIe 5.0 x16 (one direction)": PCIE5_X16.per_direction_bytes_per_s,
}


# --8<-- [start:transfer]
def prefill_seconds(prompt: int, m: dict = MODEL, device=H200) -> float:
    """Lower bound of a prefill: its matmul FLOPs at the dense bf16 peak or
    one read of the weights, whichever is longer (attention left out)."""
    flops = 2 * m["params"] * prompt
    weights = m["params"] * m["bytes_per_param"]
    return max(flops / device.bf16_dense_flop_per_s, weights / device.hbm_bytes_per_s)


def transfer_seconds(prompt: int, link_bytes_per_s: float, m: dict = MODEL) -> float:
    """Moving the prompt's keys and values from the prefill GPU to the
    decode GPU over one link."""
    kv = kv_bytes_per_token(m["layers"], m["kv_heads"], m["head_dim"], 2)
    return prompt * kv / link_bytes_per_s


# --8<-- [end:transfer]


def table(prompt: int = 4096) -> str:
    pre = prefill_seconds(prompt)
    lines = [
        f"| link | KV transfer of a {prompt:,}-token prompt | against its prefill |",
        "| --- | ---: | ---: |",
    ]
    for name, bw in LINKS.items():
        t = transfer_seconds(prompt, bw)
        lines.append(f"| {name} | {t * 1e3:.1f} ms | {t / pre:.0%} |")
    return "\n".join(lines)


EX1 = dict(prompt=8192, link="InfiniBand NDR, one 400 Gb/s port")
EX2 = dict(prompt=100)


def facts() -> dict[str, str]:
    p, link = EX1["prompt"], EX1["link"]
    t, pre = transfer_seconds(p, LINKS[link]), prefill_seconds(p)
    short = EX2["prompt"]
    short_t = transfer_seconds(short, LINKS["InfiniBand NDR, one 400 Gb/s port"])
    return {
        "prefill_4096": f"{prefill_seconds(4096) * 1e3:.1f} ms",
        "pcie": f"{PCIE5_X16.per_direction_bytes_per_s / 1e9:.0f} GB/s",
        "ex1_q": f"a {p:,}-token prompt sent over {link}",
        "ex1_a": (
            f"prefill at least {pre * 1e3:.1f} ms, transfer {t * 1e3:.1f} ms "
            f"({t / pre:.0%} of it)"
        ),
        "ex2_q": f"a {short}-token prompt",
        "ex2_a": (
            f"prefill at least {prefill_seconds(short) * 1e3:.2f} ms (one read of "
            f"the weights), transfer over InfiniBand {short_t * 1e3:.2f} ms"
        ),
    }


if __name__ == "__main__":
    print(table(2048))
