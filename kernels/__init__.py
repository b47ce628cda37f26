"""Triton kernels, each with its torch reference, launcher and napkin math."""
