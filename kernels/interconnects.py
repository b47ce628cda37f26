"""Published link figures for the interconnects the site budgets, with sources.

Every figure is a vendor's or a standard's signalling (line) rate, not a
measurement: what a collective achieves over the link is lower (headers,
protocol, synchronisation), and only a measurement says how much lower.
Figures are bytes per second (10**9 = GB/s, the datasheets' unit), stated
per direction; ``bidirectional_bytes_per_s`` is the two directions added,
which is how NVIDIA quotes NVLink ("900 GB/s") and PCIe Gen5 ("128 GB/s").

Ring collectives send and receive at once, so the per-direction figure is
the one a ring's bus bandwidth approaches.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Link:
    name: str
    short: str  # for tables
    per_direction_bytes_per_s: float  # one direction, one GPU's share
    scope: str  # which GPUs talk over it
    source: str

    @property
    def bidirectional_bytes_per_s(self) -> float:
        return 2 * self.per_direction_bytes_per_s


# --8<-- [start:links]
#: Fourth-generation NVLink on H100/H200 SXM: 18 links of 25 GB/s each way
#: (50 GB/s per link both ways), 450 GB/s per direction, 900 GB/s total per
#: GPU. In an HGX/DGX H100 or H200 8-GPU board, NVSwitch chips connect every
#: GPU to every other at that full rate.
NVLINK4_H200 = Link(
    name="NVLink 4 via NVSwitch (H100/H200 SXM, 8-GPU node)",
    short="NVLink",
    per_direction_bytes_per_s=450e9,
    scope="GPUs inside one 8-GPU NVSwitch node",
    source="NVIDIA H200 Tensor Core GPU datasheet (NVLink: 900 GB/s); "
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (18 fourth-generation "
    "NVLink links, 900 GB/s total, NVSwitch in HGX H100)",
)

#: PCIe 5.0 x16: 32 GT/s per lane with 128b/130b encoding, about 63 GB/s
#: each way; NVIDIA rounds the pair to 128 GB/s for H100/H200 PCIe Gen5.
PCIE5_X16 = Link(
    name="PCIe 5.0 x16",
    short="PCIe 5.0 x16",
    per_direction_bytes_per_s=32e9 * 16 * 128 / 130 / 8,
    scope="a GPU and its host (or a NIC) through the PCIe switch",
    source="PCI-SIG, PCI Express Base Specification 5.0 (32 GT/s, 128b/130b); "
    "NVIDIA H200 datasheet (PCIe Gen5: 128 GB/s)",
)

#: InfiniBand NDR: 400 Gb/s per port each way. DGX H100 and DGX H200 give
#: each GPU its own single-port 400 Gb/s ConnectX-7 for the compute fabric.
INFINIBAND_NDR = Link(
    name="InfiniBand NDR, one 400 Gb/s ConnectX-7 port per GPU",
    short="InfiniBand NDR",
    per_direction_bytes_per_s=400e9 / 8,
    scope="GPUs in different nodes (one NIC per GPU)",
    source="NVIDIA ConnectX-7 adapter datasheet (NDR 400 Gb/s per port); "
    "NVIDIA DGX H100/H200 user guide (eight single-port ConnectX-7 for the "
    "compute fabric, one per GPU)",
)

#: RoCE at 400 GbE on the same adapter: the same line rate as NDR.
ROCE_400G = Link(
    name="RoCE v2 over 400 GbE (ConnectX-7)",
    short="RoCE 400G",
    per_direction_bytes_per_s=400e9 / 8,
    scope="GPUs in different nodes over Ethernet (one NIC per GPU)",
    source="NVIDIA ConnectX-7 adapter datasheet (400 GbE per port); "
    "IEEE 802.3bs-2017 (400 Gb/s Ethernet)",
)

# --8<-- [end:links]

LINKS = {
    "nvlink": NVLINK4_H200,
    "pcie5": PCIE5_X16,
    "infiniband": INFINIBAND_NDR,
    "roce": ROCE_400G,
}

#: GPUs an NVSwitch joins in the H200 node the budgets assume (HGX/DGX H200).
GPUS_PER_NODE = 8
#: Compute-fabric NICs in that node: eight single-port 400 Gb/s ConnectX-7,
#: one per GPU (NVIDIA DGX H100/H200 user guide). A collective that spans
#: nodes can use every one of them: NCCL spreads its channels (rings) over
#: the node's NICs, and each ring enters and leaves a node once
#: (S. Jeaugey, NVIDIA/nccl#687).
NICS_PER_NODE = 8


def link(key: str) -> Link:
    if key not in LINKS:
        raise ValueError(f"link must be one of {', '.join(LINKS)}, got {key!r}")
    return LINKS[key]
