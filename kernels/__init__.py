"""Triton kernels, each with its torch reference, launcher and napkin math.

Modules, one job each:

- ``descriptor``: what every kernel declares about itself (``Descriptor``),
  how kernels are found, and where a kernel's code lives
  (``kernel_module``).
- ``devices``: the devices' published figures and targets (names, warp
  width), each with its source.
- ``interconnects``: published link figures for the interconnects the site
  budgets.
- ``profiles``: the benchmark profiles (``tiny``, ``quick``, ``full``),
  named once.
- ``bounds``: the error bounds outputs are checked against.
- ``inputs``: random inputs with no zeros, seeded by name.
- ``launches``: records what every Triton launch used, and CUDA's grid
  limits.
- ``residual_add_relu``: the fused residual add and ReLU, a one-file kernel.
- ``residual_add_relu_task``: the residual add and ReLU's qualification
  task, as data.
- ``attention``: attention forward, FlashAttention style (a kernel package).
- ``matmul``: tiled matrix multiplication, in Triton and Gluon (a kernel
  package).
- ``reduction``: the deterministic two-stage sum (a kernel package).
- ``scan``: the inclusive scan across blocks (a kernel package).
- ``softmax``: the row softmax, forward and backward (a kernel package).
- ``transpose``: the 2-D transpose into a new tensor (a kernel package).
"""
