"""The serving engine (taught in docs/inference/serving-engine.md)."""
