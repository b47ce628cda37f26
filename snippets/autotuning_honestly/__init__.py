"""Tested code shown on docs/kernels/to-the-service/autotuning-honestly.md."""
