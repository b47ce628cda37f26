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


# ---------------------------------------------------------------------------
# Compile targets: what one SM offers a kernel on each architecture the
# artifacts are built for (scripts/artifacts). Every figure carries its own
# source, by field name; a figure without one is refused when the entry is
# made. Per-SM and per-block limits come from the CUDA C++ Programming
# Guide's table of technical specifications per compute capability; the SM
# count is that of one named part, since one architecture ships with several.

_PROGRAMMING_GUIDE = (
    "NVIDIA CUDA C++ Programming Guide, Compute Capabilities, technical "
    "specifications per compute capability"
)


@dataclass(frozen=True)
class TargetLimits:
    """What a kernel compiled for ``arch`` may use, on ``part``."""

    arch: str  # Triton's name for the target: "sm_90a", "sm_100a", "sm_120a"
    compute_capability: int  # 90, 100, 120
    part: str  # the part whose SM count is given
    sm_count: int
    shared_bytes_per_sm: int
    shared_bytes_per_block: int  # the opt-in maximum of one block
    registers_per_sm: int  # 32-bit registers
    registers_per_thread: int
    threads_per_block: int
    tensor_memory_bytes_per_sm: int  # 0: the architecture has none
    matrix_instructions: str  # what Triton's dots compile to there
    sources: dict  # figure name -> where it comes from

    FIGURES = (
        "sm_count",
        "shared_bytes_per_sm",
        "shared_bytes_per_block",
        "registers_per_sm",
        "registers_per_thread",
        "threads_per_block",
        "tensor_memory_bytes_per_sm",
        "matrix_instructions",
    )

    def __post_init__(self):
        unsourced = [name for name in self.FIGURES if not self.sources.get(name)]
        if unsourced:
            raise ValueError(f"{self.arch}: no source for {', '.join(unsourced)}")


SM90A = TargetLimits(
    arch="sm_90a",
    compute_capability=90,
    part="H100 SXM5 / H200 SXM (GH100)",
    sm_count=H200.sm_count,
    shared_bytes_per_sm=228 * 1024,
    shared_bytes_per_block=227 * 1024,
    registers_per_sm=64 * 1024,
    registers_per_thread=255,
    threads_per_block=1024,
    tensor_memory_bytes_per_sm=0,
    matrix_instructions="wgmma (HGMMA in SASS), asynchronous, one warpgroup",
    sources={
        "sm_count": "H200 entry above (Hopper architecture whitepaper)",
        "shared_bytes_per_sm": _PROGRAMMING_GUIDE + " (9.0); Hopper Tuning Guide",
        "shared_bytes_per_block": _PROGRAMMING_GUIDE + " (9.0); Hopper Tuning Guide",
        "registers_per_sm": _PROGRAMMING_GUIDE + " (9.0)",
        "registers_per_thread": _PROGRAMMING_GUIDE + " (9.0)",
        "threads_per_block": _PROGRAMMING_GUIDE + " (9.0)",
        "tensor_memory_bytes_per_sm": "PTX ISA, tcgen05: Tensor Memory exists "
        "from sm_100a on",
        "matrix_instructions": "PTX ISA, wgmma.mma_async (sm_90a)",
    },
)

SM100A = TargetLimits(
    arch="sm_100a",
    compute_capability=100,
    part="B200 (GB100)",
    sm_count=148,
    shared_bytes_per_sm=228 * 1024,
    shared_bytes_per_block=227 * 1024,
    registers_per_sm=64 * 1024,
    registers_per_thread=255,
    threads_per_block=1024,
    # 128 lanes x 512 columns of 32-bit cells per SM.
    tensor_memory_bytes_per_sm=128 * 512 * 4,
    matrix_instructions="tcgen05.mma (UTCHMMA in SASS), issued by one thread, "
    "accumulating in tensor memory",
    sources={
        "sm_count": "multiProcessorCount that cudaGetDeviceProperties reports "
        "on a B200 (no datasheet figure)",
        "shared_bytes_per_sm": _PROGRAMMING_GUIDE + " (10.0); Blackwell Tuning Guide",
        "shared_bytes_per_block": _PROGRAMMING_GUIDE
        + " (10.0); Blackwell Tuning Guide",
        "registers_per_sm": _PROGRAMMING_GUIDE + " (10.0)",
        "registers_per_thread": _PROGRAMMING_GUIDE + " (10.0)",
        "threads_per_block": _PROGRAMMING_GUIDE + " (10.0)",
        "tensor_memory_bytes_per_sm": "PTX ISA, tcgen05 Tensor Memory: 128 "
        "lanes of 512 columns, 32 bits per cell",
        "matrix_instructions": "PTX ISA, tcgen05.mma (sm_100a)",
    },
)

SM120A = TargetLimits(
    arch="sm_120a",
    compute_capability=120,
    part="GeForce RTX 5090 (GB202)",
    sm_count=170,
    shared_bytes_per_sm=100 * 1024,
    shared_bytes_per_block=99 * 1024,
    registers_per_sm=64 * 1024,
    registers_per_thread=255,
    threads_per_block=1024,
    tensor_memory_bytes_per_sm=0,
    matrix_instructions="mma.sync (HMMA in SASS), synchronous, one warp; "
    "no wgmma, no tcgen05",
    sources={
        "sm_count": "NVIDIA RTX Blackwell GPU Architecture whitepaper (GeForce "
        "RTX 5090: 170 SMs; an RTX 5070 has 48)",
        "shared_bytes_per_sm": _PROGRAMMING_GUIDE + " (12.0)",
        "shared_bytes_per_block": _PROGRAMMING_GUIDE + " (12.0)",
        "registers_per_sm": _PROGRAMMING_GUIDE + " (12.0)",
        "registers_per_thread": _PROGRAMMING_GUIDE + " (12.0)",
        "threads_per_block": _PROGRAMMING_GUIDE + " (12.0)",
        "tensor_memory_bytes_per_sm": "PTX ISA: tcgen05 and Tensor Memory are "
        "sm_100a/sm_101a/sm_103a features, not sm_120a",
        "matrix_instructions": "PTX ISA, wgmma requires sm_90a and tcgen05 "
        "sm_100a; the artifacts' SASS for sm_120a shows HMMA",
    },
)

#: Compile targets by Triton's architecture name, in build order.
TARGETS = {limits.arch: limits for limits in (SM90A, SM100A, SM120A)}
#: The target the pages read a kernel's compiled facts from: Hopper, the
#: H200's architecture (each build is also compiled for the others).
PRIMARY_TARGET = SM90A.arch
#: Threads in one warp on every NVIDIA GPU so far (CUDA C++ Programming
#: Guide, "Hardware Implementation": "groups of 32 parallel threads called
#: warps"); Triton's ``GPUTarget`` takes it as the warp size.
WARP_SIZE = 32
