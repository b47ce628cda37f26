"""Published figures for the devices the site reasons about, each with its source.

Pencil models and the benchmark's plausibility checks read them from here;
no other file types them. Measured ceilings (copy bandwidth, matmul rate)
are never taken from here: the runner measures them in every run.

Every number a ``DeviceFigures`` holds names where it comes from in
``sources`` (field name -> ``Source``): a datasheet, a whitepaper, a vendor
document, or what the device itself reports. ``unsourced(figures)`` lists
the fields without one; the test of this file fails on any. To add a
device, append an entry like ``H200`` with a source for every figure.

Capacity is in bytes as the device reports it (``nvidia-smi``'s MiB, which
``torch.cuda.get_device_properties().total_memory`` also returns in bytes):
the datasheets' "141 GB" and "80 GB" are not decimal gigabytes. What an
application can allocate is lower still, by the CUDA context (a few hundred
MB to about a GB, depending on the driver and the libraries loaded).
"""

from dataclasses import dataclass, field, fields

#: The kinds of source a figure may cite.
SOURCE_KINDS = ("datasheet", "whitepaper", "documentation", "paper", "device report")


@dataclass(frozen=True)
class Source:
    """Where one figure comes from: its kind, the document, and the place in it."""

    kind: str
    document: str
    where: str = ""

    def __str__(self) -> str:
        return f"{self.document}, {self.where}" if self.where else self.document


H200_DATASHEET = "NVIDIA H200 Tensor Core GPU datasheet (SXM)"
H100_DATASHEET = "NVIDIA H100 Tensor Core GPU datasheet (SXM)"
HOPPER_WHITEPAPER = "NVIDIA H100 Tensor Core GPU Architecture whitepaper"
NVIDIA_SMI_H200 = "nvidia-smi on an H200 SXM (memory total)"


@dataclass(frozen=True)
class DeviceFigures:
    name: str
    sm_count: int
    memory_bytes: int
    hbm_bytes_per_s: float
    l2_bytes: int
    bf16_dense_flop_per_s: float
    fp8_dense_flop_per_s: float
    fp32_flop_per_s: float
    #: Base-2 exponentials per second (the SFU's MUFU.EX2); None where no
    #: source gives it. The second roof of attention: one exp per score.
    exp2_per_s: float | None = None
    #: field name -> where that figure comes from; one entry per figure.
    sources: dict = field(default_factory=dict, compare=False, hash=False)
    #: Every document the figures cite, joined; filled from ``sources``. (An
    #: entry written the old way, with only this string, still imports, but
    #: ``unsourced`` lists all its figures.)
    source: str = ""

    def __post_init__(self):
        if not self.source:
            documents = []
            for cited in self.sources.values():
                if isinstance(cited, Source) and cited.document not in documents:
                    documents.append(cited.document)
            object.__setattr__(self, "source", "; ".join(documents))

    @property
    def bf16_sparse_flop_per_s(self) -> float:
        """The datasheet's headline figure: 2:4 structured sparsity, twice dense."""
        return 2 * self.bf16_dense_flop_per_s


def figure_names(figures: DeviceFigures) -> list[str]:
    """The figures a device entry states (a None is not stated): every one
    needs a source."""
    return [
        f.name
        for f in fields(figures)
        if f.name not in ("name", "sources", "source")
        and getattr(figures, f.name) is not None
    ]


def unsourced(figures: DeviceFigures) -> list[str]:
    """Figures of a device that name no source (or a source of no known
    kind, or an empty document); an empty list when every one is sourced."""
    missing = []
    for name in figure_names(figures):
        source = figures.sources.get(name)
        if (
            not isinstance(source, Source)
            or source.kind not in SOURCE_KINDS
            or not source.document.strip()
        ):
            missing.append(name)
    return missing


#: NVIDIA H200 SXM. The arithmetic rates are the H100 SXM's (the same GH100
#: configuration), whose datasheet quotes them with sparsity (1,979 bf16,
#: 3,958 fp8 TFLOP/s), halved here for dense math.
H200 = DeviceFigures(
    name="NVIDIA H200",
    sm_count=132,
    # 143,771 MiB = 150,754,820,096 bytes (the datasheet's "141 GB").
    memory_bytes=143_771 * 2**20,
    hbm_bytes_per_s=4.8e12,
    l2_bytes=50 * 2**20,
    bf16_dense_flop_per_s=1979e12 / 2,
    fp8_dense_flop_per_s=3958e12 / 2,
    fp32_flop_per_s=67e12,
    # 132 SMs x 16 per clock (the CUDA guide's throughput table, compute
    # capability 9.0) at about 1.83 GHz; FlashAttention-3 quotes 3.9 T.
    exp2_per_s=3.9e12,
    sources={
        "sm_count": Source("whitepaper", HOPPER_WHITEPAPER, "H100 SXM5 configuration"),
        "memory_bytes": Source(
            "device report",
            NVIDIA_SMI_H200,
            "143,771 MiB (140.4 GiB); the datasheet's '141 GB' is close to binary "
            "gigabytes, not 141e9 bytes",
        ),
        "hbm_bytes_per_s": Source("datasheet", H200_DATASHEET, "GPU memory bandwidth"),
        "l2_bytes": Source("whitepaper", HOPPER_WHITEPAPER, "50 MB L2 cache"),
        "bf16_dense_flop_per_s": Source(
            "datasheet", H100_DATASHEET, "BF16 Tensor Core, sparse figure halved"
        ),
        "fp8_dense_flop_per_s": Source(
            "datasheet", H100_DATASHEET, "FP8 Tensor Core, sparse figure halved"
        ),
        "fp32_flop_per_s": Source(
            "datasheet", H100_DATASHEET, "FP32 (an FMA counted as two FLOPs)"
        ),
        "exp2_per_s": Source(
            "paper",
            "J. Shah et al., FlashAttention-3, arXiv 2407.08608",
            "section 3: H100 SXM5, 3.9 TFLOPS of special functions; 16 per "
            "clock per SM in the CUDA C++ Programming Guide's throughput table",
        ),
    },
)

#: Devices a result file may name. A name matches a key when it is the key or
#: ends with it after a space ("NVIDIA H200"), so a variant with its own
#: figures ("NVIDIA H200 NVL") never gets the SXM part's.
KNOWN = {"H200": H200}


def figures_for(device_name: str) -> DeviceFigures | None:
    """The published figures for a device name such as 'NVIDIA H200'."""
    name = device_name.strip()
    for key, figures in KNOWN.items():
        if name == key or name.endswith(" " + key):
            return figures
    return None
