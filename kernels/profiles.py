"""The benchmark profiles, named once: ``tiny`` (CPU, interpreter),
``quick`` (one representative shape per kernel), ``full`` (adds L2-sized and
awkward shapes) and ``compare`` (the qualification project's three shapes).
Plain data with no imports, so the result model and the site read it
without torch (kernels/descriptor.py and evidence/method.py both do)."""

PROFILES = ("tiny", "quick", "full", "compare")
