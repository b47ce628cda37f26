"""Tested code shown on docs/kernels/frontier/warp-specialisation.md."""
