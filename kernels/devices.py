"""Published figures for the devices the site reasons about, with sources.

Pencil models and the benchmark's plausibility checks read them from here;
no other file types them. Measured ceilings (copy bandwidth, matmul rate)
are never taken from here: the runner measures them in every run.
"""

from dataclasses import dataclass


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
    source: str

    @property
    def bf16_sparse_flop_per_s(self) -> float:
        """The datasheet's headline figure: 2:4 structured sparsity, twice dense."""
        return 2 * self.bf16_dense_flop_per_s


#: NVIDIA H200 SXM. Memory and bandwidth from the H200 datasheet; the
#: arithmetic rates are the H100 SXM's (the same GH100 configuration), whose
#: datasheet quotes them with sparsity (1,979 bf16, 3,958 fp8 TFLOP/s), halved
#: here for dense math; 132 SMs and a 50 MB L2 from the Hopper architecture
#: whitepaper's H100 SXM5 configuration.
H200 = DeviceFigures(
    name="NVIDIA H200",
    sm_count=132,
    memory_bytes=141 * 10**9,
    hbm_bytes_per_s=4.8e12,
    l2_bytes=50 * 2**20,
    bf16_dense_flop_per_s=1979e12 / 2,
    fp8_dense_flop_per_s=3958e12 / 2,
    fp32_flop_per_s=67e12,
    source="NVIDIA H200 Tensor Core GPU datasheet (SXM); NVIDIA H100 "
    "Tensor Core GPU datasheet (SXM); NVIDIA H100 Tensor Core GPU "
    "Architecture whitepaper",
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
