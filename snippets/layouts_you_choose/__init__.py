"""Tested code shown on docs/kernels/below-triton/layouts-you-choose.md."""
