"""The tiny language model notebook's runner: `python -m scripts.tiny_lm`
(`make notebook`) re-runs docs/start/tiny-language-model.ipynb and saves what
it produces in results/tiny_lm/."""
