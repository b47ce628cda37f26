"""Tested code shown on docs/kernels/below-triton/which-language.md."""
