"""Lesson code that more than one page uses.

Each module names the lesson that teaches it; a lesson imports only its own
folder, this library, kernels/ and evidence/ (tests/test_layout.py).

Modules, one job each:

- ``accesses``: a kernel's memory accesses: loads, stores, warps' contiguous
  bytes.
- ``amdahl``: Amdahl's law for kernel work inside a service.
- ``batching``: what batching buys and what it costs.
- ``collectives``: the cost of a collective: bus bandwidth and the alpha-
  beta model.
- ``contributed``: contributed runs as the pages' tables show them.
- ``diagrams``: one look for every diagram on the site.
- ``hopper_artifacts``: readings of any kernel's compiled builds, side by
  side.
- ``int32_offsets``: where int32 element offsets wrap past 2**31.
- ``kernel_artifact``: the memory-bound lessons' reading of a compiled
  artifact.
- ``littles_law``: Little's law: requests in flight from rate and time.
- ``lookback``: decoupled look-back as a scheduling model.
- ``matmul_artifacts``: what the compiled matmul uses, read from its
  artifact.
- ``occupancy``: how many blocks fit on one SM, and which limit binds.
- ``parallel_step``: the training step the "Beyond one GPU" lessons budget.
- ``partition``: GEMM work partitioning: which program owns which tile and K
  slice.
- ``program_order``: which strips of A and B the programs running together
  ask for.
- ``scan_carries``: prefix-scan carries: where each item writes its output.
- ``sectors``: sectors a warp touches, and a transpose's in all.
- ``softmax_merge``: merging online softmax's (running max, running sum).
- ``transpose_offsets``: transpose offsets: layouts, lane ownership, shared-
  memory banks.
- ``wave_figure``: the waves model drawn, one row per wave.
- ``waves``: scheduling waves: how many rounds a grid needs.
- ``serving``: the serving engine, its scheduler and simulator (a package).
- ``tiny_lm``: the tiny language model and its checkpoint (a package).
- ``training_memory``: the training-memory model and its worked problems (a
  package).
"""
