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
