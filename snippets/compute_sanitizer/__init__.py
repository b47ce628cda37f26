"""Snippets for one lesson page."""
