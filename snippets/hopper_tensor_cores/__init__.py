"""Tested code shown on docs/kernels/matrix-multiplication/hopper-tensor-cores.md."""
