"""The serving engine (taught in docs/inference/serving-engine.md).

- blocks.py: the block pool of the paged KV cache, with the prefix cache's books.
- scheduler.py: continuous batching, no tensors: admission, preemption, the
  token budget, the watermark, draft verification; shared with the simulator.
- engine.py: the tensors and the forward pass; the one-at-a-time reference.
- speculative.py: drafts, and the independent-acceptance arithmetic.
- simulator.py: the scheduler on a simulated clock, the step-time model,
  percentiles and summaries.
- measured.py: the committed load runs read for the pages, and the simulator
  check against them.
- mechanisms.py: the four mechanism runs, recomputed from request records.
"""
