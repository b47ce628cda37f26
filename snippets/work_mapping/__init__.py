"""CPU models of how work is mapped onto a GPU (docs/projects/work-mapping.md).

Pure Python: each model returns every intermediate array so a page can show
it and a test can check it. None of them says anything about speed.
"""
