"""The tiny language model (taught in docs/start/tiny-language-model.ipynb).

Modules, one job each:

- ``model``: a tiny decoder-only transformer in plain PyTorch.
- ``checkpoint``: saves and loads the educational checkpoint.
"""
