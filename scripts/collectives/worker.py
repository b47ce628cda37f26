"""One rank of a collectives sweep: ``python -m scripts.collectives.worker SPEC``.

Started by ``scripts.collectives.launch``, never by hand. SPEC is a JSON
object (rank, world, port, backend, sizes, collectives, iters, warmup,
timeout_s, data_parallel). Rank 0 prints one JSON object per line on
stdout as each measurement finishes, so a parent that is interrupted still
holds every finished row; the other ranks print nothing.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from datetime import timedelta


def _ops(dist, torch, device, world: int):
    """collective name -> (prepare(numel) -> call). Sizes as nccl-tests:
    numel is the full buffer one rank sees."""

    def all_reduce(numel):
        x = torch.ones(numel, device=device)
        return lambda: dist.all_reduce(x)

    def reduce_scatter(numel):
        x = torch.ones(numel, device=device)
        out = torch.empty(numel // world, device=device)
        fn = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
        return lambda: fn(out, x)

    def all_gather(numel):
        x = torch.ones(numel // world, device=device)
        out = torch.empty(numel, device=device)
        fn = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
        return lambda: fn(out, x)

    def all_to_all(numel):
        x = torch.ones(numel, device=device)
        out = torch.empty(numel, device=device)
        return lambda: dist.all_to_all_single(out, x)

    def broadcast(numel):
        x = torch.ones(numel, device=device)
        return lambda: dist.broadcast(x, 0)

    return {
        "all_reduce": all_reduce,
        "reduce_scatter": reduce_scatter,
        "all_gather": all_gather,
        "all_to_all": all_to_all,
        "broadcast": broadcast,
    }


def median_seconds(call, iters: int, sync) -> float:
    """The median of `iters` timed calls: on a shared machine a rank is
    sometimes descheduled for milliseconds, and a mean would carry that."""
    times = []
    for _ in range(iters):
        started = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    rank, world = spec["rank"], spec["world"]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(spec["port"])
    import warnings

    warnings.filterwarnings("ignore")
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)  # one core's worth per rank: ranks share the CPU
    backend = spec["backend"]
    device = "cpu"
    if backend == "nccl":
        torch.cuda.set_device(rank)
        device = f"cuda:{rank}"
    dist.init_process_group(
        backend,
        rank=rank,
        world_size=world,
        timeout=timedelta(seconds=spec["timeout_s"]),
    )

    def sync():
        if backend == "nccl":
            torch.cuda.synchronize()

    def emit(row):
        if rank == 0:
            print(json.dumps(row), flush=True)

    ops = _ops(dist, torch, device, world)
    for name in spec["collectives"]:
        for size in spec["sizes"]:
            # float32 elements, a whole number per rank (chunked collectives)
            numel = max(world, size // 4 // world * world)
            call = ops[name](numel)
            for _ in range(spec["warmup"]):
                call()
            sync()
            dist.barrier()
            local = torch.tensor(
                [median_seconds(call, spec["iters"], sync)], device=device
            )
            dist.all_reduce(local, op=dist.ReduceOp.MAX)  # the slowest rank's time
            emit(
                {
                    "row": "measurement",
                    "collective": name,
                    "world": world,
                    "size": numel * 4,
                    "seconds": local.item(),
                }
            )

    if spec.get("data_parallel"):
        from snippets.measure_collectives.data_parallel import (
            TOLERANCE,
            data_parallel_step,
            single_process_step,
        )

        # The tiny model trains on the CPU: under NCCL its tensors go
        # through a gloo group of the same ranks.
        group = dist.new_group(backend="gloo") if backend == "nccl" else None
        weights, comm_seconds, grad_bytes = data_parallel_step(
            rank, world, lambda t: dist.all_reduce(t, group=group)
        )
        reference = single_process_step()
        diff = (weights - reference).abs().max()
        dist.all_reduce(diff, op=dist.ReduceOp.MAX, group=group)
        # The step's one all-reduce, repeated on a buffer of the same size
        # for a steadier time than a single call.
        bucket = torch.ones(grad_bytes // 4)
        dist.barrier(group=group)
        call = lambda: dist.all_reduce(bucket, group=group)  # noqa: E731
        local = torch.tensor([median_seconds(call, spec["iters"], lambda: None)])
        dist.all_reduce(local, op=dist.ReduceOp.MAX, group=group)
        emit(
            {
                "row": "data_parallel",
                "world": world,
                "gradient_bytes": grad_bytes,
                "max_abs_weight_difference": diff.item(),
                "tolerance": TOLERANCE,
                "matches": bool(diff.item() <= TOLERANCE),
                "step_all_reduce_seconds": comm_seconds,
                "all_reduce_seconds": local.item(),
            }
        )
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
