"""A CPU model of a Hopper pipeline's timeline (lesson: Warp specialisation
and the Hopper pipeline). Evidence kind: pencil and CPU model. Times are in
SM clock cycles per attention key block; none of them is measured.

Two models:

- ``ring``: a producer (the TMA warp) fills a ring of ``stages`` shared-memory
  slots, a consumer empties them; each side waits on the other through
  mbarriers. The timeline gives the steady-state time per step.
- ``ping_pong``: ``groups`` consumer warpgroups share one set of tensor
  cores. Each block is a matrix phase (needs the tensor cores) followed by a
  softmax phase (exponentials on the MUFU unit, FP32 math), which one group
  can run while another uses the tensor cores.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernels.devices import H200

# --8<-- [start:rates]
#: Per SM and clock (Hopper, compute capability 9.0): dense bf16 tensor-core
#: FLOPs, MUFU exponentials, FP32 lanes. The first is the H200's dense rate
#: divided by its SMs and the clock it implies (1.83 GHz); the other two are
#: the CUDA C++ Programming Guide's arithmetic-throughput table (16 results
#: per clock for exp2, 128 FP32 operations).
CLOCK_HZ = 1.83e9
TENSOR_FLOP_PER_CLOCK = round(H200.bf16_dense_flop_per_s / H200.sm_count / CLOCK_HZ)
EXP_PER_CLOCK = 16
FP32_PER_CLOCK = 128
#: FP32 operations per score besides the exponential: the scale and
#: subtract (one FMA), the running max, the running sum, the conversion.
FP32_OPS_PER_SCORE = 4
# --8<-- [end:rates]


@dataclass(frozen=True)
class Step:
    """One key block of attention for one program: cycles on each unit."""

    matrix: float  # tensor cores: QK^T and PV
    exponentials: float  # MUFU
    other: float  # FP32 lanes

    @property
    def softmax(self) -> float:
        """Cycles of the softmax phase (MUFU and FP32 issue from one stream)."""
        return self.exponentials + self.other


# --8<-- [start:attention-step]
def attention_step(
    block_m: int = 128, block_n: int = 128, head_dim: int = 128, fp8: bool = False
) -> Step:
    """Cycles of one key block: two products of 2 * M * N * D FLOPs each, one
    exponential and ``FP32_OPS_PER_SCORE`` FP32 operations per score. FP8
    doubles the tensor-core rate and leaves the softmax as it is."""
    rate = TENSOR_FLOP_PER_CLOCK * (2 if fp8 else 1)
    scores = block_m * block_n
    return Step(
        matrix=2 * 2 * scores * head_dim / rate,
        exponentials=scores / EXP_PER_CLOCK,
        other=scores * FP32_OPS_PER_SCORE / FP32_PER_CLOCK,
    )
    # --8<-- [end:attention-step]


# --8<-- [start:ring]
def ring(steps: int, load: float, compute: float, stages: int) -> list[tuple]:
    """The timeline of a producer and a consumer around ``stages`` slots:
    (step, load start, load end, compute start, compute end). The producer
    may start loading step i once step i - stages has left its slot; the
    consumer starts step i once its load has landed and step i - 1 is done."""
    if stages < 1 or steps < 0:
        raise ValueError("stages must be >= 1 and steps >= 0")
    events, load_end, compute_end = [], [], []
    for i in range(steps):
        free = compute_end[i - stages] if i >= stages else 0.0
        start = max(free, load_end[-1] if load_end else 0.0)  # one copy engine
        load_end.append(start + load)
        begin = max(load_end[i], compute_end[-1] if compute_end else 0.0)
        compute_end.append(begin + compute)
        events.append((i, start, load_end[i], begin, compute_end[i]))
    return events


def ring_time_per_step(
    load: float, compute: float, stages: int, steps: int = 64
) -> float:
    """Steady-state cycles per step of ``ring``: the last step's spacing."""
    events = ring(steps, load, compute, stages)
    return events[-1][4] - events[-2][4]
    # --8<-- [end:ring]


# --8<-- [start:ping-pong]
def ping_pong(blocks: int, step: Step, groups: int) -> float:
    """Cycles to finish ``blocks`` key blocks per group when ``groups``
    warpgroups take turns on the tensor cores (first come, first served) and
    run their softmax on their own. One group is the serial kernel."""
    if groups < 1:
        raise ValueError("groups must be >= 1")
    ready = [0.0] * groups  # when each group may start its next matrix phase
    tensor_free = 0.0
    for _ in range(blocks):
        for g in sorted(range(groups), key=lambda g: ready[g]):
            start = max(ready[g], tensor_free)
            tensor_free = start + step.matrix
            ready[g] = tensor_free + step.softmax
    return max(ready)


def ping_pong_time_per_block(step: Step, groups: int, blocks: int = 64) -> float:
    """Steady-state cycles per key block of all groups together: the time
    the second half of a long run adds, so the start-up is not counted."""
    added = ping_pong(2 * blocks, step, groups) - ping_pong(blocks, step, groups)
    return added / (blocks * groups)


def overlap_bound(step: Step) -> float:
    """The most any overlap can give over the serial kernel: the serial step
    (matrix then softmax) over the longer of the two."""
    return (step.matrix + step.softmax) / max(step.matrix, step.softmax)


def tensor_busy(step: Step, time_per_block: float) -> float:
    """The fraction of cycles the tensor cores work."""
    return step.matrix / time_per_block
    # --8<-- [end:ping-pong]


#: Exercise 2's producer and consumer, in cycles per tile.
RING_LOAD, RING_COMPUTE = 1000, 1500


def facts() -> dict[str, str]:
    """Every value the lesson states."""
    bf16, fp8 = attention_step(), attention_step(fp8=True)
    serial = ping_pong_time_per_block(bf16, 1)
    paired = ping_pong_time_per_block(bf16, 2)
    fp8_paired = ping_pong_time_per_block(fp8, 2)
    return {
        "tensor_flop_per_clock": f"{TENSOR_FLOP_PER_CLOCK:,}",
        "exp_per_clock": str(EXP_PER_CLOCK),
        "matrix_cycles": f"{bf16.matrix:,.0f}",
        "exp_cycles": f"{bf16.exponentials:,.0f}",
        "other_cycles": f"{bf16.other:,.0f}",
        "serial_cycles": f"{serial:,.0f}",
        "serial_busy": f"{tensor_busy(bf16, serial):.0%}",
        "paired_cycles": f"{paired:,.0f}",
        "paired_busy": f"{tensor_busy(bf16, paired):.0%}",
        "bound": f"{overlap_bound(bf16):.2f}",
        "fp8_matrix_cycles": f"{fp8.matrix:,.0f}",
        "fp8_paired_busy": f"{tensor_busy(fp8, fp8_paired):.0%}",
        "fp8_bound": f"{overlap_bound(fp8):.2f}",
        "block": "128",
        "ring_load": f"{RING_LOAD:,}",
        "ring_compute": f"{RING_COMPUTE:,}",
        "ring_one_stage": f"{ring_time_per_step(RING_LOAD, RING_COMPUTE, 1):,.0f}",
        "ring_two_stages": f"{ring_time_per_step(RING_LOAD, RING_COMPUTE, 2):,.0f}",
    }


if __name__ == "__main__":
    # The worked step; the exercises' answers (FP8, the ring) stay folded.
    worked = facts()
    for key in (
        "tensor_flop_per_clock",
        "exp_per_clock",
        "matrix_cycles",
        "exp_cycles",
        "other_cycles",
        "serial_cycles",
        "serial_busy",
        "paired_cycles",
        "bound",
    ):
        print(f"{key.replace('_', ' ')}: {worked[key]}")
