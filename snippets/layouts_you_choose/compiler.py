"""Ask Triton's compiler where each element of a layout lives, on a CPU.

Shown on docs/kernels/below-triton/layouts-you-choose.md. Gluon's layout
classes are plain Python objects; the compiler turns each into a *linear
layout*: for every bit of a register, lane, warp (or shared-memory offset,
or tensor-memory lane and column) index, the coordinate that bit moves to.
The coordinate of any index is the XOR of the bases of its set bits.

``python -m snippets.layouts_you_choose.compiler`` prints a few entries;
``record()`` writes ``compiler_bases.json``, which ``owners.py`` reads so
that the site build never imports Triton (a test checks that the record is
what the compiler says today).
"""

from __future__ import annotations

import json

from snippets.layouts_you_choose import owners


# --8<-- [start:gluon-layout]
def gluon_layout(spec: dict):
    """The Gluon layout object a spec describes."""
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia import blackwell

    kind = spec["kind"]
    if kind in ("blocked", "slice"):
        fields = spec if kind == "blocked" else spec["parent"]
        layout = gl.BlockedLayout(
            fields["size_per_thread"],
            fields["threads_per_warp"],
            fields["warps_per_cta"],
            fields["order"],
        )
        return layout if kind == "blocked" else gl.SliceLayout(spec["dim"], layout)
    if kind == "nvmma":
        return gl.NVMMASharedLayout(
            swizzle_byte_width=spec["swizzle"], element_bitwidth=spec["bits"], rank=2
        )
    if kind == "tmem":
        return blackwell.TensorMemoryLayout(block=tuple(spec["block"]), col_stride=1)
    if kind == "wgmma":
        return gl.NVMMADistributedLayout(
            version=[3, 0],
            warps_per_cta=spec.get("warps_per_cta", [8, 1]),
            instr_shape=spec.get("instr_shape", [16, 256, 16]),
        )
    if kind == "tmem_regs":
        from kernels.matmul.gluon import tmem_acc_layouts

        rows, cols = spec["shape"]
        return tmem_acc_layouts(rows, cols, spec["num_warps"])[1]
    raise ValueError(f"unknown layout kind {kind!r}")
    # --8<-- [end:gluon-layout]


# --8<-- [start:compiler-bases]
def compiler_bases(spec: dict) -> dict:
    """The compiler's linear layout of ``spec`` on its shape, as bases."""
    from triton._C.libtriton import gluon_ir, ir

    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    layout = gluon_layout(spec)
    linear = builder.to_linear_layout(layout._to_ir(builder), list(spec["shape"]))
    if spec["kind"] == "nvmma":
        return {"offset": linear.offset_bases}
    if spec["kind"] == "tmem":
        return {"rows": linear.rows, "cols": linear.cols}
    return {
        "register": linear.reg_bases,
        "lane": linear.lane_bases,
        "warp": linear.warp_bases,
    }
    # --8<-- [end:compiler-bases]


def all_specs() -> dict:
    return {**owners.SPECS, **owners.triton_specs()}


def current() -> dict:
    """Every spec's bases, as the installed compiler gives them."""
    return {name: compiler_bases(spec) for name, spec in all_specs().items()}


def record(path=owners.BASES) -> None:
    """Write the compiler's answer for every spec (commit the file)."""
    import triton

    data = {"triton_version": triton.__version__, "bases": current()}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    spec = owners.SPECS["blocked"]
    bases = compiler_bases(spec)
    print(f"BlockedLayout{tuple(owners.EXAMPLE.values())} on {spec['shape']}:")
    for name in ("register", "lane", "warp"):
        print(f"  {name:8} bases {bases[name]}")
    view = owners.view_from_bases(spec, bases)
    print(
        f"  element {owners.PROBE} ->",
        "warp {}, lane {}, register {}".format(*view[owners.PROBE]),
    )
    print(
        "  model and compiler differ at",
        len(owners.mismatches(owners.model(spec), view)),
        "elements",
    )
