"""The learner trust level's case model: the arguments a learner's function
is called on, built from a seed so a run can be replayed, and the plan the
learner's process (``learner_child.py``) reads. A practice exercise
(``scripts/practice/exercises.py``) lists its cases in these terms.

An input may be a view (a ``.t()`` view, every other column), so flat pointer
arithmetic that assumes contiguity shows up; a "window" input is ``WINDOW``
bytes placed at ``start`` in a tensor of ``HUGE`` bytes, past 2**31, which
only the learner's process allocates. Every output starts as ``SENTINEL``
bytes between ``GUARD`` elements either side, and every input sits between
guards, so an unmasked lane lands in a guard.

Importing this module loads no torch: the site reads the exercises' data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

#: A "window" input: this many bytes, read starting past 2**31.
WINDOW = 4096
HUGE = 2**31 + 2 * WINDOW
#: The byte every output starts as: an element still holding it was never
#: written (0x7F repeated is 3.4e38 in float32 and 2139062143 in int32, values
#: no case's answer holds).
SENTINEL = 0x7F
#: Elements of guard around every input and output: as wide as the widest
#: block an exercise uses, so an unmasked lane lands in the guard.
GUARD = 1024


@dataclass(frozen=True)
class Input:
    """One argument: its name, logical shape and dtype, how its values are
    drawn, and the view the learner's function receives."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    fill: str = "randn"  # randn, positive, large, nan, counts
    view: str = ""  # "", "transposed" (a .t() view), "step2" (every other column)


@dataclass(frozen=True)
class Case:
    name: str
    inputs: tuple[Input, ...]
    out_shape: tuple[int, ...]
    out_dtype: str = "float32"
    params: dict = field(default_factory=dict)  # extra keyword arguments


DTYPES = ("float32", "int32", "uint8")


def dtype_of(name: str):
    import torch

    return {"float32": torch.float32, "int32": torch.int32, "uint8": torch.uint8}[name]


def base_shape(spec: Input) -> tuple[int, ...]:
    """The storage a view is taken from."""
    if spec.view == "transposed":
        return tuple(reversed(spec.shape))
    if spec.view == "step2":
        return (*spec.shape[:-1], 2 * spec.shape[-1])
    if spec.fill == "window":
        return (WINDOW,)  # the child places it at `start` in a 2 GiB tensor
    return spec.shape


def view_of(base, spec: Input):
    if spec.view == "transposed":
        return base.t()
    if spec.view == "step2":
        return base[..., ::2]
    return base


def draw(spec: Input, generator):
    import torch

    shape, dtype = base_shape(spec), dtype_of(spec.dtype)
    if spec.fill in ("counts", "window"):
        # Below 0x7F, so no right answer equals the sentinel byte.
        high = 127 if spec.dtype == "uint8" else 4
        return torch.randint(0, high, shape, generator=generator, dtype=dtype)
    values = torch.randn(shape, generator=generator, dtype=torch.float64)
    if spec.fill == "positive":
        values = values.abs() + 0.01
    elif spec.fill == "large":
        values = values * 30 + 100
    elif spec.fill == "nan":
        values[::7] = float("nan")
    return values.to(dtype)


def build_case(case: Case, seed: int) -> dict:
    import torch

    generator = torch.Generator().manual_seed(seed)
    return {spec.name: draw(spec, generator) for spec in case.inputs}


def inputs64(case: Case, bases: dict) -> list:
    """The inputs as the learner's function saw them, in float64. A window's
    is the window itself: the 2 GiB tensor it sits in exists only in the
    child."""
    import torch

    return [view_of(bases[s.name], s).to(torch.float64) for s in case.inputs]


def prepare(task, job: Path, seed: int, accesses: bool = False) -> list[dict]:
    """Write one check's inputs and plan into `job`; the bases the parent
    keeps. ``task``: what the learner's file is called on (its ``function``,
    ``cases`` and ``deterministic``: an exercise of ``scripts/practice``)."""
    from safetensors.torch import save_file

    job.mkdir(parents=True, exist_ok=True)
    plan, all_bases = [], []
    for index, case in enumerate(task.cases):
        bases = build_case(case, seed * 1000 + index)
        all_bases.append(bases)
        save_file(bases, str(job / f"in{index}.safetensors"))
        plan.append(
            {
                "case": case.name,
                "inputs": [[s.name, s.view, s.fill, s.dtype] for s in case.inputs],
                "out_shape": list(case.out_shape),
                "out_dtype": case.out_dtype,
                "params": case.params,
            }
        )
    text = json.dumps(
        {
            "function": task.function,
            "cases": plan,
            "again": task.deterministic,
            "sentinel": SENTINEL,
            "guard": GUARD,
            "huge": HUGE,
            "accesses": accesses,
        }
    )
    (job / "plan.json").write_text(text)
    return all_bases
