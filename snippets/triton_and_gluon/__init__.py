"""Tested code shown on docs/kernels/below-triton/triton-and-gluon.md."""
