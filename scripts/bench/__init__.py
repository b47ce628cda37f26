"""The benchmark runner: ``python -m scripts.bench`` (see ``__main__``)."""
