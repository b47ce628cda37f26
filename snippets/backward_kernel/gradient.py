"""Softmax's gradient, derived and checked in float64 (lesson: A backward
kernel, docs/kernels/frontier/backward-kernel.md). Evidence kind: CPU model.
It checks the algebra of dx = y * (dy - sum(y * dy)) against the Jacobian and
against finite differences; it says nothing about a kernel's rounding or speed.
"""

from __future__ import annotations

# --8<-- [start:imports]
import math

# --8<-- [end:imports]

#: A row of scores and an incoming gradient, small enough to follow by hand.
SCORES = [1.0, -0.5, 2.0, 0.25, -1.5]
DY = [0.3, -1.2, 0.5, 0.9, -0.1]


def softmax(x: list[float]) -> list[float]:
    top = max(x)
    e = [math.exp(v - top) for v in x]
    total = sum(e)
    return [v / total for v in e]


# --8<-- [start:jacobian]
def jacobian(y: list[float]) -> list[list[float]]:
    """d y_i / d x_j = y_i * ([i == j] - y_j): the derivative of
    exp(x_i) / sum(exp(x)) by the quotient rule."""
    n = len(y)
    return [[y[i] * ((i == j) - y[j]) for j in range(n)] for i in range(n)]


def grad_by_jacobian(y: list[float], dy: list[float]) -> list[float]:
    """dx_j = sum_i dy_i * d y_i / d x_j: n * n products per row."""
    jac = jacobian(y)
    n = len(y)
    return [sum(dy[i] * jac[i][j] for i in range(n)) for j in range(n)]
    # --8<-- [end:jacobian]


# --8<-- [start:fused]
def grad_fused(y: list[float], dy: list[float]) -> list[float]:
    """The same sum, regrouped: dx_j = y_j * dy_j - y_j * sum_i dy_i * y_i.
    One dot product per row, then one multiply-subtract per element."""
    dot = sum(a * b for a, b in zip(y, dy, strict=True))
    return [yj * (dyj - dot) for yj, dyj in zip(y, dy, strict=True)]
    # --8<-- [end:fused]


# --8<-- [start:finite-difference]
def grad_by_finite_differences(
    x: list[float], dy: list[float], step: float = 1e-6
) -> list[float]:
    """dx_j ≈ (L(x + h e_j) - L(x - h e_j)) / 2h, where
    L(x) = sum(dy * softmax(x)): no calculus, only the forward pass run
    twice per column."""

    def loss(v):
        return sum(a * b for a, b in zip(dy, softmax(v), strict=True))

    grads = []
    for j in range(len(x)):
        up, down = list(x), list(x)
        up[j] += step
        down[j] -= step
        grads.append((loss(up) - loss(down)) / (2 * step))
    return grads
    # --8<-- [end:finite-difference]


def worst_gap(a: list[float], b: list[float]) -> float:
    return max(abs(p - q) for p, q in zip(a, b, strict=True))


def facts() -> dict[str, str]:
    """Every value the lesson states."""
    y = softmax(SCORES)
    fused = grad_fused(y, DY)
    return {
        "row": ", ".join(f"{v:g}" for v in SCORES),
        "dy": ", ".join(f"{v:g}" for v in DY),
        "dx": ", ".join(f"{v:.4f}" for v in fused),
        "sum-dx": f"{sum(fused):.1e}",
        "jacobian-gap": f"{worst_gap(fused, grad_by_jacobian(y, DY)):.0e}",
        "fd-gap": f"{worst_gap(fused, grad_by_finite_differences(SCORES, DY)):.0e}",
    }


if __name__ == "__main__":
    y = softmax(SCORES)
    print("y  =", [round(v, 4) for v in y])
    print("dx =", [round(v, 4) for v in grad_fused(y, DY)])
    for key in ("jacobian-gap", "fd-gap"):
        print(f"{key}: {facts()[key]}")
