"""Tested code shown on docs/kernels/attention/flash-attention-forward.md."""
