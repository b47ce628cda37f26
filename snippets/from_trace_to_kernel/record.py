"""Record a training step with torch.profiler and summarise it top down
(lesson: From a service trace down to a kernel).

`python -m scripts.tiny_lm.profile` uses these functions on the tiny language
model's checkpoint and writes results/tiny_lm/profile.cpu.json; run this file
to profile two steps of a freshly built, even tinier model.
"""

from collections import defaultdict

PHASES = ("forward", "backward", "optimizer")
PREFIX = "phase: "
STEP = "step"
TOP_OPS = 12


# --8<-- [start:record]
def training_step_in_ranges(model, optimizer, inputs, targets):
    """One training step, each phase inside a named profiler range so the
    trace has a top level: step -> forward / backward / optimizer."""
    from torch.profiler import record_function

    from snippets.lib.tiny_lm.model import next_token_loss

    with record_function(STEP):
        with record_function(PREFIX + "forward"):
            loss = next_token_loss(model, inputs, targets)
        optimizer.zero_grad()
        with record_function(PREFIX + "backward"):
            loss.backward()
        with record_function(PREFIX + "optimizer"):
            optimizer.step()
    return loss.item()


# --8<-- [end:record]


def phase_of(event) -> str | None:
    """The phase range (or the step) an event sits under, walking up its
    CPU parents; None for events outside every range."""
    node = event
    while node is not None:
        if node.name.startswith(PREFIX):
            return node.name[len(PREFIX) :]
        if node.name == STEP:
            return STEP
        node = node.cpu_parent
    return None


def summarise(events) -> dict:
    """Top-down summary from torch.profiler FunctionEvents (or any objects
    with name, cpu_parent, self_cpu_time_total, cpu_time_total).

    Returns total CPU microseconds per step range and per phase range, and
    per phase the operators with the most self time."""
    ranges: dict[str, float] = defaultdict(float)
    range_counts: dict[str, int] = defaultdict(int)
    self_us: dict[tuple[str, str], float] = defaultdict(float)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for event in events:
        if event.name == STEP or event.name.startswith(PREFIX):
            name = event.name.removeprefix(PREFIX)
            ranges[name] += event.cpu_time_total
            range_counts[name] += 1
            continue
        phase = phase_of(event)
        if phase is None:
            continue
        self_us[(phase, event.name)] += event.self_cpu_time_total
        counts[(phase, event.name)] += 1
    if STEP not in ranges:
        raise ValueError(f"events hold no {STEP!r} range: nothing to summarise")
    phases = []
    for phase in (*PHASES, STEP):
        ops = sorted(
            (
                {"name": name, "calls": counts[(p, name)], "self_us": us}
                for (p, name), us in self_us.items()
                if p == phase
            ),
            key=lambda op: (-op["self_us"], op["name"]),
        )
        phases.append(
            {
                "name": phase,
                "total_us": ranges.get(phase, 0.0),
                "ranges": range_counts.get(phase, 0),
                "self_us_of_ops": sum(op["self_us"] for op in ops),
                "top_ops": [
                    {**op, "self_us": round(op["self_us"], 1)} for op in ops[:TOP_OPS]
                ],
            }
        )
    return {"step_total_us": ranges[STEP], "phases": phases}


if __name__ == "__main__":
    import torch
    from torch.profiler import ProfilerActivity, profile

    from snippets.lib.tiny_lm.model import Adam, TinyLM

    torch.manual_seed(0)
    model = TinyLM(context=16, width=32, heads=2, layers=1)
    optimizer = Adam(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 256, (4, 17))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(2):
            training_step_in_ranges(model, optimizer, ids[:, :-1], ids[:, 1:])
    summary = summarise(prof.events())
    for phase in summary["phases"]:
        top = phase["top_ops"][0]["name"] if phase["top_ops"] else "-"
        print(f"{phase['name']:>9}: {phase['ranges']} ranges, top op {top}")
