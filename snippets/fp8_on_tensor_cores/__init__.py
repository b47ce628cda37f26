"""Tested code shown on docs/kernels/matrix-multiplication/fp8-on-tensor-cores.md."""
