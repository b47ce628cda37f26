"""The tiny language model (taught in docs/start/tiny-language-model.ipynb)."""
