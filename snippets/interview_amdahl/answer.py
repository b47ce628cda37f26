"""Interview exercise: Amdahl's law on a training step
(docs/interview/amdahl-on-a-step.md), computed with the lesson's model in
snippets/lib/amdahl.py."""

from snippets.lib.amdahl import (
    fmt_x,
    overall_speedup,
    required_kernel_speedup,
    speedup_cap,
)

STEP_MS = 250.0
ATTENTION_MS = 70.0
KERNEL_SPEEDUP = 4.0
TARGET = 1.25
STRETCH_TARGET = 1.4


def worked() -> dict[str, float]:
    f = ATTENTION_MS / STEP_MS
    return {
        "fraction": f,
        "new_step_ms": STEP_MS - ATTENTION_MS + ATTENTION_MS / KERNEL_SPEEDUP,
        "overall": overall_speedup(f, KERNEL_SPEEDUP),
        "cap": speedup_cap(f),
        "required": required_kernel_speedup(f, TARGET),
        "stretch": required_kernel_speedup(f, STRETCH_TARGET),
    }


def facts() -> dict[str, str]:
    w = worked()
    return {
        "given.step": f"{STEP_MS:g} ms",
        "given.attention": f"{ATTENTION_MS:g} ms",
        "given.kernel_speedup": fmt_x(KERNEL_SPEEDUP, 0),
        "given.target": fmt_x(TARGET),
        "given.stretch": fmt_x(STRETCH_TARGET, 1),
        "answer.fraction": f"{w['fraction'] * 100:.0f}%",
        "answer.new_step": f"{w['new_step_ms']:.1f} ms",
        "answer.overall": fmt_x(w["overall"]),
        "answer.cap": fmt_x(w["cap"]),
        "answer.required": fmt_x(w["required"]),
        "answer.stretch": fmt_x(w["stretch"]),
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>15}: {value}")
