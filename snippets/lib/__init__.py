"""Lesson code that more than one page uses.

Each module names the lesson that teaches it; a lesson imports only its own
folder, this library, kernels/ and evidence/ (tests/test_layout.py).
"""
