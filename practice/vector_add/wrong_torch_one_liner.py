"""Wrong for this track: torch adds the vectors, no kernel of yours runs.
Mistake: no_kernel."""

import torch


def vector_add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    torch.add(x, y, out=out)
