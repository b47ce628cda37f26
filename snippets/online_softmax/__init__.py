"""Tested code shown on docs/kernels/attention/online-softmax.md."""
