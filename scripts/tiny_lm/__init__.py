"""The tiny language model notebook's runner: `python -m scripts.tiny_lm`
(`make notebook`) re-runs docs/start/tiny-language-model.ipynb and saves what
it produces in results/tiny_lm/.

Modules, one job each:

- ``__main__``: re-runs the notebook and saves what it produces.
- ``profile``: profiles the tiny model's training steps on the CPU.
"""
