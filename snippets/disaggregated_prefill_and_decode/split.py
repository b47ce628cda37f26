"""Disaggregated prefill and decode: when splitting the phases onto
different GPUs pays, and what moving the KV cache between them costs
(docs/inference/disaggregated-prefill-and-decode.md).

Standard library only. The link figures are datasheet figures kept here with
their sources (a shared file of interconnect figures is being written for the
multi-GPU lessons; these should move there). From memory, to check against
the datasheets named.
"""

from kernels.devices import H200
from snippets.lib.batching import MODEL, kv_bytes_per_token

#: One direction of each link, bytes per second.
LINKS = {
    # NVIDIA H200 datasheet: NVLink 900 GB/s per GPU, both directions.
    "NVLink 4 (one H200, one direction)": 450e9,
    # NVIDIA ConnectX-7 / Quantum-2: NDR InfiniBand, 400 Gb/s per port.
    "InfiniBand NDR, one 400 Gb/s port": 400e9 / 8,
    # PCIe 5.0 x16: 32 GT/s per lane, 16 lanes, about 64 GB/s per direction.
    "PCIe 5.0 x16 (one direction)": 64e9,
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
