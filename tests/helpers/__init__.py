"""Helpers the tests share (importable as ``tests.helpers``)."""
