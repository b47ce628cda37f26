"""Results other tools measured, contributed by readers: checked, then tabled.

``python -m scripts.bench import`` maps an nccl-tests ``-J`` file, a ``vllm
bench serve --save-result`` file or an ``sglang.bench_serving`` line into one
of two kinds (``schemas/contributed_collectives.schema.json``,
``schemas/contributed_serving.schema.json``), whose evidence is always
"measured, contributed": a run on someone's GPU, never ours, never mixed with
ours. This module is what every reader of those files shares: the checks JSON
Schema cannot express (printable names, the identities between a run's own
numbers, bounds from the link and device datasheets), loading a folder with
one file per source run, and the tables and facts the pages show.
"""

from __future__ import annotations

from pathlib import Path

from evidence import ROOT, ResultFileError, display_path, read
from evidence.text import first_string_problem

DIRS = {
    "contributed_collectives": ROOT / "results" / "contributed" / "collectives",
    "contributed_serving": ROOT / "results" / "contributed" / "serving",
}
#: How far a run's own derived numbers may be from what its other numbers
#: give (the tools print six decimals; an edited file is further off).
IDENTITY_TOLERANCE = 0.02
#: A device kernels/devices.py has no figures for may use links this many
#: times faster than the fastest link on record (a newer NVLink), no more.
UNKNOWN_DEVICE_HEADROOM = 2.0
#: Links that join GPUs of one host only.
HOST_LINKS = ("nvlink", "pcie5")


def bus_factor(collective: str, ranks: int) -> float:
    """nccl-tests' bus bandwidth over algorithm bandwidth (doc/PERFORMANCE.md):
    the share of the buffer each rank's link carries in a ring."""
    n = ranks
    factors = {
        "all_reduce": 2 * (n - 1) / n,
        "reduce_scatter": (n - 1) / n,
        "all_gather": (n - 1) / n,
        "all_to_all": (n - 1) / n,
        "broadcast": 1.0,
    }
    return factors[collective]


def _refuse(shown: str, field: str, why: str) -> ResultFileError:
    return ResultFileError(f"{shown}: field '{field}': {why}")


def _near(value: float, expected: float) -> bool:
    return abs(value - expected) <= IDENTITY_TOLERANCE * max(abs(expected), 1e-12)


def link_bound(device: dict) -> tuple[float, str]:
    """(bytes/s, what it is) that no rank's traffic can beat: the named link
    inside one host; across hosts the node's own fabric (NVLink), since a
    node's NICs add up; times a headroom for a device without figures."""
    from kernels.devices import figures_for
    from kernels.interconnects import LINKS, NVLINK4_H200

    link = LINKS[device["link"]] if device["hosts"] == 1 else NVLINK4_H200
    rate, what = link.per_direction_bytes_per_s, f"{link.short} per-direction rate"
    if figures_for(device["name"]) is None:
        fastest = max(x.per_direction_bytes_per_s for x in LINKS.values())
        rate = UNKNOWN_DEVICE_HEADROOM * max(rate, fastest)
        what = f"{UNKNOWN_DEVICE_HEADROOM:g}x the fastest link on record"
    return rate, what


def _check_row(row: dict, where: str, data: dict, shown: str) -> None:
    collective = data["settings"]["collective"]
    factor = bus_factor(collective, data["device"]["ranks"])
    bound, what = link_bound(data["device"])
    for place in ("out_of_place", "in_place"):
        timing, field = row[place], f"{where}.{place}"
        algbw = row["size_bytes"] / (timing["time_us"] * 1e-6)
        if not _near(timing["algbw_bytes_per_s"], algbw):
            raise _refuse(
                shown, f"{field}.algbw_bytes_per_s", "is not the size over the time"
            )
        if not _near(timing["busbw_bytes_per_s"], algbw * factor):
            raise _refuse(
                shown,
                f"{field}.busbw_bytes_per_s",
                f"is not the algorithm bandwidth times {factor:.4g} "
                f"(nccl-tests' factor for {collective} of this many ranks)",
            )
        # NVLS sums in the switch, so an all-reduce's bus bandwidth may pass
        # the link; each rank still sends its buffer once: algbw is bounded.
        shown_bw = algbw if collective == "all_reduce" else algbw * factor
        name = "algorithm" if collective == "all_reduce" else "bus"
        if shown_bw > bound * (1 + IDENTITY_TOLERANCE):
            raise _refuse(
                shown,
                f"{field}.time_us",
                f"impossible: {name} bandwidth {shown_bw / 1e9:.4g} GB/s is above "
                f"the {what}, {bound / 1e9:.4g} GB/s",
            )
        if timing.get("p99_us", timing["time_us"]) <= 0:
            raise _refuse(shown, f"{field}.p99_us", "not a time")


def check_collectives(data: dict, shown: str) -> None:
    """What a contributed nccl-tests run must satisfy beyond its schema:
    printable names, a host link within one host, sizes in order, and for
    every size algbw = size / time, busbw = algbw x the collective's factor,
    and nothing above the link's datasheet rate."""
    found = first_string_problem(data)
    if found is not None:
        raise _refuse(shown, *found)
    device = data["device"]
    if device["link"] in HOST_LINKS and device["hosts"] != 1:
        raise _refuse(
            shown,
            "device.link",
            f"{device['link']} joins the GPUs of one host, but the run spans "
            f"{device['hosts']} hosts",
        )
    if device["hosts"] > device["ranks"]:
        raise _refuse(shown, "device.hosts", "more hosts than ranks")
    sizes = [row["size_bytes"] for row in data["rows"]]
    if sizes != sorted(set(sizes)):
        raise _refuse(shown, "rows", "message sizes repeat or are out of order")
    for i, row in enumerate(data["rows"]):
        _check_row(row, f"rows[{i}]", data, shown)


def check_serving(data: dict, shown: str) -> None:
    """What a contributed serving run must satisfy beyond its schema:
    printable names, throughputs that are the counts over the duration, no
    more completed requests than prompts, goodput only with its SLOs and
    never above the request rate achieved, and percentiles that rise with
    their rank."""
    found = first_string_problem(data)
    if found is not None:
        raise _refuse(shown, *found)
    s, settings = data["summary"], data["settings"]
    if s["completed"] + s.get("failed", 0) > settings["num_prompts"]:
        raise _refuse(shown, "summary.completed", "more requests than prompts")
    if not _near(s["request_throughput"], s["completed"] / s["duration_s"]):
        raise _refuse(
            shown, "summary.request_throughput", "is not completed over duration"
        )
    tokens = s.get("total_output_tokens")
    if tokens is not None and not _near(
        s["output_throughput"], tokens / s["duration_s"]
    ):
        raise _refuse(
            shown, "summary.output_throughput", "is not output tokens over duration"
        )
    if "request_goodput" in s:
        if not settings.get("slo_ms"):
            raise _refuse(shown, "summary.request_goodput", "goodput without its SLOs")
        if s["request_goodput"] > s["request_throughput"] * (1 + IDENTITY_TOLERANCE):
            raise _refuse(
                shown, "summary.request_goodput", "above the request throughput"
            )
    for metric, values in s["latency_s"].items():
        if not _percentiles_rise(values):
            raise _refuse(
                shown,
                f"summary.latency_s.{metric}",
                "percentiles do not rise with their rank (the median is p50)",
            )


def _percentiles_rise(values: dict[str, float]) -> bool:
    """Every pNN at least every lower one, with the median as p50."""
    ranked = sorted(
        (float(key[1:]), value) for key, value in values.items() if key[0] == "p"
    )
    if "median" in values:
        ranked = sorted([*ranked, (50.0, values["median"])])
    return all(
        lower[1] <= higher[1] * (1 + 1e-9)
        for lower, higher in zip(ranked, ranked[1:], strict=False)
    )


CHECKS = {
    "contributed_collectives": check_collectives,
    "contributed_serving": check_serving,
}


def load(kind: str, path: Path, root: Path = ROOT) -> dict:
    """One contributed file, through ``evidence.read`` (size, depth, strict
    JSON, schema) and this kind's checks; ResultFileError naming the field."""
    loaded = read(kind, path, root)
    CHECKS[kind](loaded.data, display_path(path, root))
    return loaded.data


def identity(data: dict) -> tuple:
    """What makes two contributed files the same run: the tool's own file
    (its sha256) and, for a file holding several runs, the line."""
    ident = data["identity"]
    return (data["source"], ident["source_sha256"], ident.get("line"))


def load_folder(
    kind: str, folder: Path | None = None, root: Path = ROOT, adding: Path | None = None
) -> list[dict]:
    """Every contributed file of one kind, in name order, each checked; one
    file per source run (``adding`` is checked as if it were there)."""
    folder = DIRS[kind] if folder is None else Path(folder)
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if adding is not None:
        paths.append(Path(adding))
    found, seen = [], {}
    for path in paths:
        data = load(kind, path, root)
        key = identity(data)
        if key in seen:
            raise _refuse(
                display_path(path, root),
                "identity.source_sha256",
                f"the same {data['source']} run as {seen[key]}; one file per run",
            )
        seen[key] = path.name
        found.append(data)
    return found
