"""Prefix caching and chunked prefill: what each saves and what it costs
(docs/inference/prefix-caching-and-chunked-prefill.md).

Standard library only. The arithmetic of a prefix hit (only whole blocks
are shared) and of a token budget (a long prompt spread over several steps
so the running decodes keep their pace), with the CPU step time fitted to
the committed engine run; the engine's own with/without measurements are in
snippets/lib/serving/measured.py.
"""

from snippets.lib.serving import measured
from snippets.lib.serving.simulator import StepTime, fit_step_time


# --8<-- [start:hit]
def prefix_hit_tokens(shared: int, prompt: int, block_size: int) -> int:
    """Prompt tokens a request finds cached when its first `shared` tokens
    match an earlier request's: whole blocks only, and never the prompt's
    last token, which must be fed to produce the first output."""
    usable = min(shared, prompt - 1)
    return (usable // block_size) * block_size


def prefill_saved(shared: int, own: int, block_size: int) -> float:
    """Share of a request's prefill tokens a warm prefix cache skips."""
    prompt = shared + own
    return prefix_hit_tokens(shared, prompt, block_size) / prompt


# --8<-- [end:hit]


# --8<-- [start:chunk]
def stalled_step(step_time: StepTime, decodes: int, prompt: int, budget=None):
    """The longest step the running decodes wait through when a `prompt`
    arrives: the whole prefill in one step, or one chunk under a budget;
    and how many steps the prefill then takes."""
    chunk = prompt if budget is None else min(prompt, budget - decodes)
    if chunk < 1:
        raise ValueError("budget must leave room for at least one prompt token")
    steps = -(-prompt // chunk)
    return step_time(decodes + 1, decodes + chunk), steps


# --8<-- [end:chunk]


def cpu_step_time() -> StepTime:
    return fit_step_time(measured.all_steps(measured.newest()))


#: The exercises: a chat service's system prompt, and a long document.
EX1 = dict(shared=1000, own=200, block_size=16)
EX2 = dict(decodes=7, prompt=56, budget=16)


def facts() -> dict[str, str]:
    """Every value the page states by name."""
    t = cpu_step_time()
    whole, _ = stalled_step(t, EX2["decodes"], EX2["prompt"])
    chunked, steps = stalled_step(t, **EX2)
    plain = t(EX2["decodes"], EX2["decodes"])
    out = {
        "ex1_q": (
            f"a system prompt of {EX1['shared']:,} tokens shared by every "
            f"request, {EX1['own']} tokens of its own, blocks of "
            f"{EX1['block_size']}"
        ),
        "ex1_a": (
            f"{prefix_hit_tokens(EX1['shared'], EX1['shared'] + EX1['own'], 16):,} "
            f"of {EX1['shared'] + EX1['own']:,} prompt tokens come from the cache "
            f"({prefill_saved(**EX1):.0%} of the prefill skipped); the last "
            f"{EX1['shared'] % EX1['block_size']} tokens of the system prompt sit "
            "in a partial block and are computed again"
        ),
        "ex2_q": (
            f"{EX2['decodes']} sequences decoding when a {EX2['prompt']}-token "
            f"prompt arrives, a token budget of {EX2['budget']}"
        ),
        "ex2_a": (
            f"without a budget one step of {whole * 1e3:.2f} ms; with it "
            f"{steps} steps of at most {chunked * 1e3:.2f} ms, against "
            f"{plain * 1e3:.2f} ms for a decode-only step"
        ),
    }
    return out


if __name__ == "__main__":
    t = cpu_step_time()
    for budget in (None, 32, 16, 12):
        step, steps = stalled_step(t, 4, 40, budget)
        print(f"budget {budget}: longest step {step * 1e3:.2f} ms over {steps} step(s)")
