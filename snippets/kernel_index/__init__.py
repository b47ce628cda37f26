"""Tested code shown on docs/kernels/index.md."""
