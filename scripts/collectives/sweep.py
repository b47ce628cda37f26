"""A sweep over world sizes: launch the ranks, collect rows, fit, build the
result file's content (validated by ``evidence.write`` against
``evidence/schemas/collectives.schema.json``)."""

from __future__ import annotations

import contextlib
import os
from datetime import UTC, datetime
from pathlib import Path

from evidence import ROOT, sha256_file, slug
from evidence.provenance import device_info, git_identity, software_info
from scripts.collectives import launch
from snippets.lib.collectives import (
    bandwidths,
    fit_alpha_beta,
    relative_errors,
    split_held_back,
)

RUNNER_SOURCES = (
    "scripts/collectives/__main__.py",
    "scripts/collectives/launch.py",
    "scripts/collectives/sweep.py",
    "scripts/collectives/worker.py",
    "snippets/lib/collectives.py",
    "snippets/measure_collectives/data_parallel.py",
)

EVIDENCE = {
    "gloo": (
        "CPU processes on one host exchanging over loopback (gloo): a CPU "
        "measurement of the software path, never NVLink, PCIe or InfiniBand"
    ),
    "nccl": "GPUs of one host (NCCL): a device measurement of this host's links",
}


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def max_world(backend: str) -> int:
    """The most ranks this machine can run: one per GPU for NCCL; for gloo
    two per logical CPU (beyond one per CPU the ranks time-share cores,
    which the result file flags as oversubscribed)."""
    if backend == "nccl":
        import torch

        return torch.cuda.device_count()
    return 2 * (os.cpu_count() or 1)


def pick_backend(requested: str) -> str:
    if requested != "auto":
        return requested
    import torch

    return (
        "nccl"
        if torch.cuda.is_available() and torch.cuda.device_count() >= 2
        else "gloo"
    )


def fits(measurements: list[dict]) -> list[dict]:
    """One alpha-beta fit per (collective, world) with at least three sizes:
    fitted on every other size, tested on the sizes held back."""
    groups: dict[tuple, list] = {}
    for m in measurements:
        groups.setdefault((m["collective"], m["world"]), []).append(
            (m["size"], m["seconds"])
        )
    out = []
    for (collective, world), points in groups.items():
        if len(points) < 3:
            continue
        fit_points, held = split_held_back(points)
        model = fit_alpha_beta([p[0] for p in fit_points], [p[1] for p in fit_points])
        errors = relative_errors(model, [p[0] for p in held], [p[1] for p in held])
        out.append(
            {
                "collective": collective,
                "world": world,
                "alpha_s": model.alpha_s,
                "beta_s_per_byte": model.beta_s_per_byte,
                "fit_sizes": [p[0] for p in fit_points],
                "held_back_sizes": [p[0] for p in held],
                "held_back_mean_rel_error": sum(errors) / len(errors),
                "held_back_max_rel_error": max(errors),
            }
        )
    return out


def run(settings: dict, argv: list[str], launcher=launch.rows) -> dict:
    """Measure every world size in turn. Never raises for an interrupt or a
    failed rank: the result then says ``partial`` and why, with every row
    finished before it."""
    started = now_utc()
    measurements: list[dict] = []
    data_parallel = None
    interrupted = None
    cpus = os.cpu_count() or 1
    try:
        for world in settings["world_sizes"]:
            port = settings["port"] or launch.free_port()
            specs = [
                {
                    "rank": rank,
                    "world": world,
                    "port": port,
                    "backend": settings["backend"],
                    "sizes": settings["sizes"],
                    "collectives": settings["collectives"],
                    "iters": settings["iters"],
                    "warmup": settings["warmup"],
                    "timeout_s": settings["timeout_s"],
                    "data_parallel": settings["data_parallel"] and world == 2,
                }
                for rank in range(world)
            ]
            commands = [launch.worker_command(s) for s in specs]
            with contextlib.closing(launcher(commands, settings["timeout_s"])) as got:
                for row in got:
                    if row.get("row") == "data_parallel":
                        data_parallel = {k: v for k, v in row.items() if k != "row"}
                        continue
                    bw = bandwidths(
                        row["collective"], world, row["size"], row["seconds"]
                    )
                    measurements.append(
                        {
                            "collective": row["collective"],
                            "world": world,
                            "size": row["size"],
                            "seconds": row["seconds"],
                            "algbw_bytes_per_s": bw["algbw"],
                            "busbw_bytes_per_s": bw["busbw"],
                            "oversubscribed": settings["backend"] == "gloo"
                            and world > cpus,
                        }
                    )
    except KeyboardInterrupt:
        interrupted = "interrupted (Ctrl-C or SIGTERM) before the sweep finished"
    except launch.LaunchError as exc:
        interrupted = str(exc)
    result = {
        "schema_version": 1,
        "run_status": "partial" if interrupted else "complete",
        "evidence": EVIDENCE[settings["backend"]],
        "identity": {
            **git_identity(),
            "started_utc": started,
            "finished_utc": now_utc(),
            "argv": argv,
            "runner_sources": {p: sha256_file(ROOT / p) for p in RUNNER_SOURCES},
        },
        "software": software_info(),
        "device": device_info("cpu"),
        "settings": {k: v for k, v in settings.items() if k != "port"},
        "measurements": measurements,
        "fits": fits(measurements),
    }
    if settings["backend"] == "nccl":
        import torch

        result["device"]["gpus"] = [
            torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())
        ]
    if data_parallel is not None:
        result["data_parallel"] = data_parallel
    if interrupted:
        result["interrupted"] = interrupted
    return result


def output_path(result: dict, out_dir: Path) -> Path:
    stamp = result["identity"]["started_utc"].replace(":", "").replace("-", "")[:15]
    name = f"{slug(result['device']['name'])}-{result['settings']['backend']}-{stamp}"
    return Path(out_dir) / f"{name}.json"
