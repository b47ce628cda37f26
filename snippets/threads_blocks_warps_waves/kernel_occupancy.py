"""Occupancy of every compiled project kernel, read from its artifact.

Shown on docs/kernels/work-mapping/threads-blocks-warps-waves.md. The
artifacts, results/artifacts/<op>.sm_90a.json, are written by
`python -m scripts.artifacts`, which compiles each kernel for sm_90a without
a GPU. Evidence kind: compiled artifact plus the pencil model in
occupancy.py. It says how many blocks fit, not how fast any of them run.
"""

from __future__ import annotations

from pathlib import Path

from evidence.artifacts import TARGET, load
from evidence.tables import markdown_table
from kernels.devices import H200
from snippets.lib.occupancy import register_warps, residency
from snippets.lib.waves import Waves, gemm_work_units

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "results" / "artifacts"


# --8<-- [start:from-artifact]
def build_residency(build: dict):
    """Residency of one build from the three numbers the compiler reports."""
    return residency(build["registers"], build["num_warps"], build["shared_bytes"])


def load_builds(directory: Path = ARTIFACTS) -> list[tuple[str, dict]]:
    """(kernel, build) for every build of every artifact, sorted by kernel."""
    found = []
    for path in sorted(Path(directory).glob(f"*.{TARGET}.json")):
        artifact = load(path.name.split(".")[0], path)
        for build in artifact["builds"]:
            found.append((artifact["kernel"], build))
    return found
    # --8<-- [end:from-artifact]


def occupancy_table(directory: Path = ARTIFACTS) -> str:
    """Markdown: one row per compiled build."""
    header = [
        "kernel",
        "build",
        "warps",
        "registers",
        "shared memory",
        "blocks per SM",
        "limited by",
        "occupancy",
    ]
    rows = []
    for kernel, build in load_builds(directory):
        r = build_residency(build)
        rows.append(
            (
                f"`{kernel}`",
                f"`{build['build']}`",
                build["num_warps"],
                build["registers"],
                f"{build['shared_bytes']:,} B",
                r.blocks,
                r.limiter,
                f"{100 * r.occupancy:.1f}%",
            )
        )
    if not rows:
        return "No compiled artifacts yet: run `python -m scripts.artifacts`."
    return markdown_table(header, rows, "llrrrrlr", escape=False)


def find_build(kernel: str, name: str, directory: Path = ARTIFACTS) -> dict:
    for found_kernel, build in load_builds(directory):
        if (found_kernel, build["build"]) == (kernel, name):
            return build
    raise ValueError(f"kernel/name: no build {kernel}/{name} in {directory}")


def build_facts(build: dict) -> dict[str, str]:
    """The numbers of one build a sentence may state."""
    r = build_residency(build)
    per_warp = -(-build["registers"] * 32 // 256) * 256
    return {
        "registers": str(build["registers"]),
        "warps": str(build["num_warps"]),
        "shared": f"{build['shared_bytes']:,} bytes",
        "blocks": str(r.blocks),
        "limiter": r.limiter,
        "occupancy": f"{100 * r.occupancy:.1f}%",
        # warps the register file could hold at this register count
        "register-warps": str(register_warps(build["registers"])),
        "per-warp": f"{per_warp:,}",
    }


def facts() -> dict[str, str]:
    """Every committed build's numbers, keyed kernel.build.what; a page reads
    one as ``<!-- fact: <this file>:matmul.bf16-aligned.registers -->``."""
    out = balance_facts()
    for kernel, build in load_builds():
        for what, text in build_facts(build).items():
            out[f"{kernel}.{build['build']}.{what}"] = text
    return out


# --8<-- [start:balance]
def tail_cost(grid: int, blocks_per_sm: int, speedup: float) -> tuple[float, float]:
    """Time, in units of one block's time, of the grid as it is and with
    every block `speedup` times faster. Equal blocks, one wave at a time."""
    rounds = Waves(H200.sm_count, blocks_per_sm, grid).count
    return float(rounds), rounds / speedup


def balanced_time(grid: int, blocks_per_sm: int) -> float:
    """The same work spread evenly over every slot, in block times."""
    return grid / (H200.sm_count * blocks_per_sm)
    # --8<-- [end:balance]


BALANCE_EXAMPLE = dict(M=4480, N=1024, tile_m=128, tile_n=256)
TILE_SPEEDUP = 1.1


def balance_facts() -> dict[str, str]:
    """The lesson's argument in numbers: a faster tile against a full tail."""
    ex = BALANCE_EXAMPLE
    grid = gemm_work_units(ex["M"], ex["N"], ex["tile_m"], ex["tile_n"])
    now, tuned = tail_cost(grid, 1, TILE_SPEEDUP)
    return {
        "balance.output": f"{ex['M']} x {ex['N']}",
        "balance.tile": f"{ex['tile_m']} x {ex['tile_n']}",
        "balance.blocks": f"{grid}",
        "balance.now": f"{now:.0f}",
        "balance.faster": f"{100 * (TILE_SPEEDUP - 1):.0f}%",
        "balance.tuned": f"{tuned:.2f}",
        "balance.sms": f"{H200.sm_count}",
        "balance.even": f"{balanced_time(grid, 1):.2f}",
    }


def example_waves() -> str:
    """Exercise answer: the project's GEMM example grid on the H200."""
    from snippets.lib.waves import facts
    from snippets.threads_blocks_warps_waves.occupancy import waves

    return waves(int(facts()["blocks"]))


if __name__ == "__main__":
    print(occupancy_table())
    b = balance_facts()
    print(
        f"a {b['balance.output']} output in {b['balance.tile']} tiles is "
        f"{b['balance.blocks']} blocks; at one block per SM that is "
        f"{b['balance.now']} block-times. Making every block {b['balance.faster']} "
        f"faster gives {b['balance.tuned']}; spreading the same work evenly over "
        f"the {b['balance.sms']} SMs would take {b['balance.even']}"
    )
