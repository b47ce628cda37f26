"""Published measurements: device behaviour others measured and printed.

The fifth kind of evidence, beside this project's pencil models, interpreter
runs, compiled artifacts and device measurements. Each figure carries what
it takes to judge it: the value and unit, the document and the place in it
(section, table, abstract), the device, the software, the shape and the
publication date. Figures are taken from the primary source only.

They are never this project's results. Pages show them with their own tag,
``published: <source>, <device>``, through ``published_text`` and
``published_table`` here, and next to a ``<!-- badge: published -->``; they
never share a table column or a plot series with our measurements, and no
goal reads them (``tests/evidence/test_published.py`` checks all three,
with ``mixing_problems``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kernels.interconnects import NVLINK4_H200

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Published:
    """One figure from a paper or a vendor page."""

    quantity: str  # what was measured, in a few words
    value: float
    unit: str
    qualifier: str  # "", "up to", "close to": how the source states it
    source: str  # the short name a tag shows: "FlashAttention-3 paper"
    document: str  # authors, title, where it appeared
    where: str  # section, table or abstract
    device: str
    software: str
    shape: str  # the workload: sizes, precision, scale
    date: str  # publication date, YYYY-MM
    #: For a bandwidth: the line rate it ran on (bytes/s, the datasheet's),
    #: so a page can state the share the source reached; 0 when none.
    line_rate_bytes_per_s: float = 0.0

    def value_text(self) -> str:
        number = f"{self.value:,.1f}" if self.value % 1 else f"{self.value:,.0f}"
        text = f"{number} {self.unit}" if self.unit != "%" else f"{number}%"
        return f"{self.qualifier} {text}" if self.qualifier else text

    def tag(self) -> str:
        return f"published: {self.source}, {self.device}"


FA3 = (
    "J. Shah, G. Bikshandi, Y. Zhang, V. Thakkar, P. Ramani and T. Dao, "
    '"FlashAttention-3: fast and accurate attention with asynchrony and '
    'low-precision", arXiv 2407.08608'
)
FA2 = (
    'T. Dao, "FlashAttention-2: faster attention with better parallelism and '
    'work partitioning", arXiv 2307.08691'
)
MEGATRON = (
    "D. Narayanan et al., "
    '"Efficient large-scale language model training on GPU clusters using '
    'Megatron-LM", SC 2021, arXiv 2104.04473'
)
KORTHIKANTI = (
    'V. Korthikanti et al., "Reducing activation recomputation in large '
    'transformer models", MLSys 2023, arXiv 2205.05198'
)
ZERO = (
    'S. Rajbhandari, J. Rasley, O. Ruwase and Y. He, "ZeRO: memory '
    'optimizations toward training trillion parameter models", SC 2020, '
    "arXiv 1910.02054"
)
PALM = (
    'A. Chowdhery et al., "PaLM: scaling language modeling with pathways", '
    "arXiv 2204.02311"
)
LLAMA3 = 'Llama Team, AI @ Meta, "The Llama 3 herd of models", arXiv 2407.21783'
THUNDERKITTENS = (
    "B. F. Spector, S. Arora, A. Singhal, D. Y. Fu and C. Ré, "
    '"ThunderKittens: simple, fast, and adorable AI kernels", ICLR 2025, '
    "arXiv 2410.20399"
)
HELION = "PyTorch, Helion README (github.com/pytorch/helion, PyPI helion 0.2.0)"

JEAUGEY_212 = (
    "S. Jeaugey (NCCL maintainer), comment on NVIDIA/nccl-tests#212, "
    '"H100 all reduce performance is poor"'
)
JEAUGEY_119 = (
    "S. Jeaugey (NCCL maintainer), comment on NVIDIA/nccl-tests#119, "
    '"Evaluation of NCCL test result"'
)
#: NVLink on H100/H200 SXM, one direction (the datasheet's, typed once in
#: kernels/interconnects.py).
NVLINK_PER_DIRECTION = NVLINK4_H200.per_direction_bytes_per_s
NCCL_TESTS = "nccl-tests all_reduce_perf, NCCL's default choice unless stated"

#: Every published figure the site shows, by key.
FIGURES: dict[str, Published] = {
    "nccl-nvlink-ring-busbw": Published(
        quantity="bus bandwidth NCCL reaches over NVLink with a ring (or any "
        "collective other than all-reduce)",
        value=370,
        unit="GB/s",
        qualifier="",
        source="NCCL maintainer, nccl-tests#212",
        document=JEAUGEY_212,
        where="comment of 2024-05-06: line rate 450 GB/s, protocol overhead about 20%",
        device="HGX H100, 8 GPUs on NVSwitch",
        software=NCCL_TESTS + "; NCCL_ALGO=RING for all-reduce",
        shape="large messages, 8 GPUs",
        date="2024-05",
        line_rate_bytes_per_s=NVLINK_PER_DIRECTION,
    ),
    "nccl-nvls-allreduce-busbw": Published(
        quantity="peak all-reduce bus bandwidth with NVLink SHARP (NVLS)",
        value=480,
        unit="GB/s",
        qualifier="about",
        source="NCCL maintainer, nccl-tests#212",
        document=JEAUGEY_212,
        where="comment of 2024-05-06",
        device="HGX H100, 8 GPUs on NVSwitch",
        software=NCCL_TESTS + " (NVLS for all-reduce on NVSwitch nodes)",
        shape="messages larger than 256 MB, 8 GPUs",
        date="2024-05",
    ),
    "nccl-nvls-allreduce-algbw": Published(
        quantity="the same runs' algorithm bandwidth",
        value=275,
        unit="GB/s",
        qualifier="about",
        source="NCCL maintainer, nccl-tests#212",
        document=JEAUGEY_212,
        where="comment of 2024-05-06",
        device="HGX H100, 8 GPUs on NVSwitch",
        software=NCCL_TESTS + " (NVLS for all-reduce on NVSwitch nodes)",
        shape="messages larger than 256 MB, 8 GPUs",
        date="2024-05",
        line_rate_bytes_per_s=NVLINK_PER_DIRECTION,
    ),
    "nccl-nic-200g-busbw": Published(
        quantity="peak bus bandwidth NCCL reaches per 200 Gb/s NIC",
        value=24,
        unit="GB/s",
        qualifier="",
        source="NCCL maintainer, nccl-tests#119",
        document=JEAUGEY_119,
        where="comment of 2022-11-17 (12 GB/s for 100 Gb/s NICs)",
        device="multi-node GPU servers, one 200 Gb/s NIC per GPU",
        software=NCCL_TESTS,
        shape="large messages across nodes",
        date="2022-11",
        line_rate_bytes_per_s=200e9 / 8,  # the NIC's 200 Gb/s
    ),
    "fa3-fp16-forward": Published(
        quantity="attention forward pass, FP16",
        value=740,
        unit="TFLOP/s",
        qualifier="up to",
        source="FlashAttention-3 paper",
        document=FA3,
        where="abstract (75% of the H100's FP16 peak)",
        device="H100 SXM5",
        software="FlashAttention-3",
        shape="the paper's forward benchmark, best point over its sequence "
        "lengths and head dimensions",
        date="2024-07",
    ),
    "fa3-fp8-forward": Published(
        quantity="attention forward pass, FP8",
        value=1.2,
        unit="PFLOP/s",
        qualifier="close to",
        source="FlashAttention-3 paper",
        document=FA3,
        where="abstract",
        device="H100 SXM5",
        software="FlashAttention-3",
        shape="the paper's FP8 forward benchmark, best point",
        date="2024-07",
    ),
    "fa2-h100-fwd-bwd": Published(
        quantity="attention forward and backward together, FlashAttention-2 "
        "without Hopper instructions",
        value=335,
        unit="TFLOP/s",
        qualifier="up to",
        source="FlashAttention-2 paper",
        document=FA2,
        where="section 4.1 and Fig. 7, 'Attention forward + backward speed on "
        "H100 GPU' (the same code run on H100, no TMA or wgmma)",
        device="H100 80GB SXM5",
        software="FlashAttention-2",
        shape="the paper's attention benchmark, best point",
        date="2023-07",
    ),
    "fa2-a100-share": Published(
        quantity="attention, share of the A100's peak FLOP/s",
        value=73,
        unit="%",
        qualifier="up to",
        source="FlashAttention-2 paper",
        document=FA2,
        where="abstract (50 to 73% across the benchmark)",
        device="A100",
        software="FlashAttention-2",
        shape="the paper's attention benchmark, forward and backward",
        date="2023-07",
    ),
    "fa2-a100-training": Published(
        quantity="GPT-style training throughput per GPU (72% MFU)",
        value=225,
        unit="TFLOP/s",
        qualifier="up to",
        source="FlashAttention-2 paper",
        document=FA2,
        where="abstract",
        device="A100",
        software="FlashAttention-2 in end-to-end GPT-style training",
        shape="GPT-style models, end to end",
        date="2023-07",
    ),
    "megatron-1t": Published(
        quantity="hardware FLOPs utilisation per GPU, recomputation counted, "
        "not an MFU (502 PFLOP/s on 3,072 GPUs)",
        value=52,
        unit="%",
        qualifier="",
        source="Megatron-LM paper",
        document=MEGATRON,
        where="abstract; section 5.1, eq. (3) counts the recomputed forward pass",
        device="A100, 3,072 GPUs",
        software="Megatron-LM (tensor, pipeline and data parallelism)",
        shape="a 1-trillion-parameter GPT model",
        date="2021-04",
    ),
    "korthikanti-530b": Published(
        quantity="model FLOPs utilisation with selective recomputation",
        value=54.2,
        unit="%",
        qualifier="",
        source="Korthikanti et al.",
        document=KORTHIKANTI,
        where="abstract",
        device="A100, 2,240 GPUs",
        software="Megatron-LM with sequence parallelism and selective "
        "activation recomputation",
        shape="a 530-billion-parameter GPT-3-style model",
        date="2022-05",
    ),
    "zero-100b": Published(
        quantity="aggregate training throughput",
        value=15,
        unit="PFLOP/s",
        qualifier="",
        source="ZeRO paper",
        document=ZERO,
        where="abstract",
        device="V100, 400 GPUs",
        software="DeepSpeed ZeRO-100B",
        shape="models of over 100 billion parameters",
        date="2019-10",
    ),
    "palm-540b": Published(
        quantity="model FLOPs utilisation, training",
        value=46.2,
        unit="%",
        qualifier="",
        source="PaLM paper",
        document=PALM,
        where="section 4.1 (training efficiency)",
        device="TPU v4, 6,144 chips",
        software="JAX and T5X on Pathways",
        shape="PaLM 540B",
        date="2022-04",
    ),
    "llama3-405b-8k": Published(
        quantity="BF16 model FLOPs utilisation, pre-training",
        value=43,
        unit="%",
        qualifier="",
        source="Llama 3 paper",
        document=LLAMA3,
        where="section 3.3, Table 4",
        device="H100, 8,192 GPUs",
        software="Meta's 4D-parallel training stack",
        shape="Llama 3 405B, sequence 8,192",
        date="2024-07",
    ),
    "llama3-405b-128k": Published(
        quantity="BF16 model FLOPs utilisation, long-context pre-training",
        value=38,
        unit="%",
        qualifier="",
        source="Llama 3 paper",
        document=LLAMA3,
        where="section 3.3, Table 4",
        device="H100, 16,384 GPUs",
        software="Meta's 4D-parallel training stack (with context parallelism)",
        shape="Llama 3 405B, sequence 131,072",
        date="2024-07",
    ),
    "tk-attention-backward": Published(
        quantity="attention backward, over the strongest baseline",
        value=40,
        unit="%",
        qualifier="up to",
        source="ThunderKittens paper",
        document=THUNDERKITTENS,
        where="abstract (10 to 40% faster)",
        device="H100",
        software="ThunderKittens kernels",
        shape="the paper's attention backward benchmark",
        date="2024-10",
    ),
    "tk-linear-attention": Published(
        quantity="linear attention, speed-up over the strongest baseline",
        value=14,
        unit="times",
        qualifier="up to",
        source="ThunderKittens paper",
        document=THUNDERKITTENS,
        where="abstract",
        device="H100",
        software="ThunderKittens kernels",
        shape="the paper's linear attention benchmark",
        date="2024-10",
    ),
    "helion-autotune-time": Published(
        quantity="autotuning time of one kernel",
        value=10,
        unit="min",
        qualifier="about",
        source="Helion README",
        document=HELION,
        where="README, About (hundreds of Triton candidates evaluated)",
        device="not stated",
        software="Helion with its Triton backend",
        shape="one Helion kernel, the README's general estimate",
        date="2025-10",
    ),
}

FIELDS = ("quantity", "unit", "source", "document", "where", "device", "software")
FIELDS += ("shape", "date")
DATE = re.compile(r"^(19|20)\d\d-(0[1-9]|1[0-2])$")


def problems(key: str, figure: Published) -> list[str]:
    """What is missing or malformed in one entry; empty when it is complete."""
    found = [
        f"{key}: no {name}" for name in FIELDS if not getattr(figure, name).strip()
    ]
    if not DATE.match(figure.date):
        found.append(f"{key}: date {figure.date!r} is not YYYY-MM")
    if not (isinstance(figure.value, (int, float)) and figure.value > 0):
        found.append(f"{key}: value {figure.value!r} is not a positive number")
    if figure.qualifier not in ("", "up to", "close to", "about"):
        found.append(f"{key}: qualifier {figure.qualifier!r} is not a known one")
    return found


def figure(key: str) -> Published:
    if key not in FIGURES:
        raise KeyError(f"no published figure {key!r}; known: {', '.join(FIGURES)}")
    return FIGURES[key]


def published_text(key: str) -> str:
    """The figure for a sentence, with its tag: 'up to 740 TFLOP/s
    (published: FlashAttention-3 paper, H100 SXM5)'. The page adds the
    ``<!-- badge: published -->`` at the end of the claim."""
    found = figure(key)
    return f"{found.value_text()} ({found.tag()})"


def published_share(key: str) -> str:
    """A published bandwidth as a share of the line rate it ran on: '82%'.
    The share is the source's figure over the datasheet's rate, so it stays
    published evidence; the page tags it with ``<!-- badge: published -->``."""
    found = figure(key)
    if found.unit != "GB/s" or not found.line_rate_bytes_per_s:
        raise ValueError(f"{key}: not a bandwidth with a line rate")
    return f"{found.value * 1e9 / found.line_rate_bytes_per_s:.0%}"


def published_table(*keys: str) -> str:
    """A table of published figures only: it takes no measurement of ours,
    so the two never share a column."""
    from evidence.tables import markdown_table

    rows = []
    for key in keys:
        found = figure(key)
        rows.append(
            [
                found.quantity,
                found.value_text(),
                found.device,
                found.shape,
                found.software,
                f"{found.tag()}; {found.where}; {found.date}",
            ]
        )
    header = ["published figure", "value", "device", "shape", "software", "source"]
    return markdown_table(header, rows, "lrllll") + "\n"


# What a page must not put next to a published figure: this project's
# measurements (the benchmark tables and plots) and goals.
PUBLISHED_USE = re.compile(r"evidence/published\.py:published_(text|table)\(")
OURS = re.compile(
    r"bench_pages\.py:|bench_plot\.py:|badge:\s*measured|goals|kernel_results\("
)


def mixing_problems(markdown: str, page: str = "page") -> list[str]:
    """Where a page mixes published figures with its own evidence: a table
    row or paragraph that shows both, or a published figure with no
    ``<!-- badge: published -->`` in the same paragraph."""
    found = []
    for block in re.split(r"\n\s*\n", markdown):
        if not PUBLISHED_USE.search(block):
            continue
        lines = block.splitlines()
        for line in lines:
            if PUBLISHED_USE.search(line) and OURS.search(line):
                found.append(f"{page}: a published figure shares a line with ours")
        if OURS.search(block) and block.lstrip().startswith("|"):
            found.append(f"{page}: a published figure in a table of ours")
        if "published_text(" in block and "<!-- badge: published -->" not in block:
            found.append(f"{page}: a published figure without its badge")
    return found


def pages_using_published(docs: Path = ROOT / "docs") -> dict[str, int]:
    """Pages that show published figures, with how many figure keys each."""
    counts = {}
    key = re.compile(r"published_(?:text|table)\(([^)]*)\)")
    for page in sorted(docs.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        keys = set()
        for match in key.finditer(text):
            keys.update(re.findall(r'"([\w-]+)"', match.group(1)))
        if keys:
            counts[str(page.relative_to(docs))] = len(keys)
    return counts
