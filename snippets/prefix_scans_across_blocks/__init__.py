"""Tested code shown on docs/kernels/attention/prefix-scans-across-blocks.md."""
