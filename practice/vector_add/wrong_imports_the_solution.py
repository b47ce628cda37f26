"""Wrong for this track: the folded solution is imported and called.
Mistake: import."""

from practice.vector_add.solution import vector_add as folded


def vector_add(x, y, out):
    folded(x, y, out)
