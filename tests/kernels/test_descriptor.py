"""Every kernel's DESCRIPTOR against what its launcher really does.

``launch_config(dtype, shape)`` is the one source of a kernel's launch
configuration: the benchmark records it, the artifact builder compiles it,
the catalog publishes it. These tests run each launcher under
``record_launches()`` and fail when what launched differs from it, on the
tiny benchmark shapes and on small shapes that take every branch of a config.
They also check CUDA's grid limits on the benchmark shapes and on awkward
large ones, without running a kernel: the launches are recorded on "meta"
tensors and never executed.
"""

import ast
import dataclasses
import inspect
import json
import math
from pathlib import Path

import pytest
import torch
import triton

import kernels.inputs
import kernels.transpose.versions as transpose
from kernels.descriptor import (
    PROFILES,
    Descriptor,
    Goal,
    Launch,
    Target,
    discover,
    kernel_module,
)
from kernels.launches import (
    DEVICE_CONSTEXPRS,
    grid_violation,
    record_launches,
    without_device_constexprs,
)
from tests.helpers.kernel_checks import assert_within, seed_for

DESCRIPTORS = discover()
NAMES = list(DESCRIPTORS)
ALL_KERNELS = set(NAMES)


def _bhsd(B, H, S, D, causal):
    return {"B": B, "H": H, "S": S, "D": D, "causal": causal}


def _rc(rows, cols):
    return {"rows": rows, "cols": cols}


# Small shapes that take each branch of a config, beside the tiny profile.
# (dtype, shape); interpreter costs about 1-3 ms per program instance.
BRANCHES = {
    "softmax": [
        ("float32", _rc(3, 1)),  # BLOCK 16, the smallest fused row
        ("float32", _rc(3, 7)),
        ("bfloat16", _rc(2, 1000)),  # BLOCK 1024, 4 warps
        ("float32", _rc(2, 1025)),  # BLOCK 2048, 8 warps
        ("float32", _rc(2, 20000)),  # past FUSED_MAX_BLOCK: online v2
    ],
    "attention": [
        (dtype, _bhsd(1, 1, 33, D, causal))
        for dtype in ("float32", "bfloat16")
        for D, causal in ((16, False), (64, True), (80, False), (128, True))
    ],
    "matmul": [
        *(
            (dtype, {"M": 33, "N": 17, "K": 40})  # N rows not 16 B: version 1
            for dtype in ("float32", "float16", "bfloat16")
        ),
        ("bfloat16", {"M": 33, "N": 24, "K": 40}),  # version 2, TMA
    ],
    "scan": [
        ("float32", {"numel": 1}),  # the tail launch only
        ("bfloat16", {"numel": 4096}),  # the main launch only
        ("float32", {"numel": 4099}),  # main and tail
    ],
    "reduction": [
        ("float32", {"numel": 1}),  # one stage
        ("float16", {"numel": 4097}),  # persistent stage, tail, last stage
    ],
    "residual_add_relu": [
        ("float32", {"rows": 2, "cols": 1024}),  # the main launch only
        ("bfloat16", {"rows": 1, "cols": 1000}),  # the tail only
    ],
    "transpose": [("bfloat16", _rc(1, 65)), ("float32", _rc(65, 1))],
}

# Large awkward shapes checked against CUDA's grid limits (never executed).

# Kernels whose grids break CUDA's limits today (issue 19 fixes them); the
# grid check below runs for every other kernel, and
# test_grid_check_sees_known_breaks keeps this list honest.
# Kernels whose launches may break CUDA's grid limits: none since issue 19
# moved attention's heads and transpose's column tiles onto grid axis 0.
BREAKS_GRID_LIMITS: set[str] = set()


def _cases():
    for name, d in DESCRIPTORS.items():
        for shape in d.shapes["tiny"]:
            for dtype in dict.fromkeys((d.dtype_cpu, d.dtype_cuda)):
                yield pytest.param(name, dtype, shape, id=f"{name}-tiny-{dtype}")
        for i, (dtype, shape) in enumerate(BRANCHES.get(name, ())):
            case_id = f"{name}-{d.shape_text(shape)}-{dtype}-{i}"
            yield pytest.param(name, dtype, shape, id=case_id)


def _run(d: Descriptor, dtype: torch.dtype, shape, device: str):
    inputs = d.make_inputs(shape, dtype, device, seed_for(d.name, shape))
    with record_launches() as log:
        out = d.launcher(*inputs, **d.call_kwargs(shape))
    return inputs, out, log


@pytest.mark.parametrize(("name", "dtype", "shape"), list(_cases()))
def test_launcher_uses_launch_config(name, dtype, shape, device):
    d = DESCRIPTORS[name]
    torch_dtype = getattr(torch, dtype)
    inputs, out, log = _run(d, torch_dtype, shape, device)
    launched = log.launches()
    for launch in launched:
        for key in DEVICE_CONSTEXPRS:
            if key in launch.constexprs:
                assert launch.constexprs[key] == (device == "cpu"), key
    expected = d.launch_config(torch_dtype, shape)
    assert without_device_constexprs(launched) == expected
    for record in log.records:
        assert record.grid is not None, f"{record.launch.kernel}: grid unknown"
    # The same run checks the descriptor's error bound against float64.
    inputs64 = tuple(x.double() for x in inputs)
    truth = d.reference(*inputs64, **d.call_kwargs(shape))
    bound = d.error_bound(inputs64, truth, torch_dtype, shape)
    assert_within(out, truth, bound, f"{name} {d.shape_text(shape)} {dtype}")


@pytest.fixture
def launches_not_run(monkeypatch):
    """Launchers record their launches on "meta" tensors, run no kernel."""
    from triton.runtime.jit import JITFunction

    classes = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        classes.append(InterpretedFunction)
    except ImportError:
        pass
    for cls in classes:
        monkeypatch.setattr(cls, "run", lambda self, *args, **kwargs: None)

    def empty(shape, dtype, device="cpu", *, seed, positive=False):
        return torch.empty(shape, dtype=dtype, device="meta")

    monkeypatch.setattr(kernels.inputs, "nonzero_randn", empty)

    def grids(d: Descriptor, dtype: str, shape) -> list[tuple[int, int, int]]:
        inputs = d.make_inputs(shape, getattr(torch, dtype), "meta", 0)
        with record_launches() as log:
            d.launcher(*inputs, **d.call_kwargs(shape))
        assert log.records, f"{d.name} {d.shape_text(shape)}: nothing launched"
        return [record.grid for record in log.records]

    return grids


def _grid_cases():
    for name in NAMES:
        if name in BREAKS_GRID_LIMITS:
            continue
        yield pytest.param(name, id=name)


@pytest.mark.parametrize("name", list(_grid_cases()))
def test_grids_fit_cuda_limits(name, launches_not_run):
    d = DESCRIPTORS[name]
    shapes = [s for profile in PROFILES for s in d.shapes_for(profile, "cuda")]
    for shape in [*shapes, DESCRIPTORS[name].grid_probe]:
        for grid in launches_not_run(d, d.dtype_cuda, shape):
            assert grid is not None
            violation = grid_violation(grid)
            assert violation is None, f"{d.shape_text(shape)}: {violation}"


def _tiles_on_axis_1(x):
    # Known-wrong: the transpose's column tiles on grid axis 1, as it was
    # launched before issue 19; a wide input needs more than 65535 there.
    M, N = x.shape
    out = torch.empty((N, M), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    transpose.transpose_v2_kernel[grid](
        x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=64, BLOCK_N=64
    )
    return out


def test_grid_check_sees_a_known_break(launches_not_run):
    """A known-wrong launch proves the grid check can fail."""
    d = dataclasses.replace(DESCRIPTORS["transpose"], launcher=_tiles_on_axis_1)
    grids = launches_not_run(d, d.dtype_cuda, d.grid_probe)
    assert any(grid_violation(grid) for grid in grids)


def test_every_kernel_has_a_grid_probe():
    assert all(d.grid_probe is not None for d in DESCRIPTORS.values())
    assert BREAKS_GRID_LIMITS <= ALL_KERNELS


def _profile_shapes(d: Descriptor):
    for profile in PROFILES:
        for device_kind in ("cuda", "cpu"):
            yield from d.shapes_for(profile, device_kind)


@pytest.mark.parametrize("name", NAMES)
def test_profiles_give_configs_and_costs(name):
    d = DESCRIPTORS[name]
    assert d.name == name
    assert set(d.shapes) <= set(PROFILES) and set(d.cpu_shapes) <= set(PROFILES)
    assert d.shapes["tiny"] and d.shapes["quick"] and d.shapes["full"]
    for shape in _profile_shapes(d):
        for dtype in (d.dtype_cpu, d.dtype_cuda):
            launches = d.launch_config(getattr(torch, dtype), shape)
            assert launches and all(isinstance(x, Launch) for x in launches)
            for launch in launches:
                assert launch.num_warps in (1, 2, 4, 8, 16, 32)
        text = d.shape_text(shape)
        assert isinstance(text, str) and text
        for itemsize in (2, 4):
            moved = d.bytes_moved(shape, itemsize)
            assert type(moved) is int and moved >= 0, (text, moved)
        work = d.flops(shape)
        assert type(work) is int and work >= 0, (text, work)


@pytest.mark.parametrize("name", NAMES)
def test_goals_are_data(name):
    d = DESCRIPTORS[name]
    assert d.goals, f"{name} has no goals"
    metrics = {"R", "F_bw", "F_flop", "speedup_vs_eager"}
    for goal in d.goals:
        assert goal.regime and goal.must
        for target in (*goal.must, *goal.stretch):
            assert target.metric in metrics
            assert math.isfinite(target.at_least) and target.at_least > 0
            if target.shape is not None:
                assert d.shape_text(target.shape)


@pytest.mark.parametrize("name", NAMES)
def test_artifact_builds_name_every_parameter(name):
    """signature, fixed and the launch's constexprs together give every
    parameter of the compiled function exactly once."""
    d = DESCRIPTORS[name]
    module = kernel_module(name)
    builds = [b.build for b in d.artifact_builds]
    assert d.artifact_builds and len(builds) == len(set(builds))
    for build in d.artifact_builds:
        launches = d.launch_config(getattr(torch, build.dtype), build.shape)
        launch = launches[build.launch]
        kernel = getattr(module, launch.kernel)
        params = list(inspect.signature(kernel.fn).parameters)
        given = [*build.signature, *build.fixed, *launch.constexprs]
        assert sorted(given) == sorted(params), build.build
        assert set(build.aligned) <= set(build.signature), build.build
        assert build.shows, build.build


# ------------------------------------------------- the Descriptor type itself


def _toy(**changes) -> Descriptor:
    """A descriptor of no real kernel, to test the type on known data."""
    fields = dict(
        name="toy",
        title="toy copy",
        launcher=lambda x: x,
        reference=lambda x: x,
        metric="bandwidth",
        shapes={
            "tiny": ({"numel": 3},),
            "quick": ({"numel": 1 << 20},),
            "full": ({"numel": 1 << 20}, {"numel": (1 << 24) + 1}),
        },
        operands=lambda numel: [(numel,)],
        count_bytes=lambda numel, itemsize: 2 * numel * itemsize,
        count_flops=lambda numel: 0,
        configure=lambda dtype, numel: [Launch("toy_kernel", {"B": 8}, 4)],
        error_bound=lambda inputs, truth, dtype, shape: truth,
        shape_format="n={numel}",
        cpu_shapes={"quick": ({"numel": 5},)},
        baselines={"copy_": lambda x: x},
        goals=(
            Goal(
                "any size",
                must=(Target("F_bw", 0.8),),
                stretch=(Target("R", 1.5, shape={"numel": 3}, note="vs eager"),),
            ),
        ),
    )
    fields.update(changes)
    return Descriptor(**fields)


def test_shapes_for_takes_cpu_shapes_only_on_a_cpu():
    toy = _toy()
    assert toy.shapes_for("quick", "cpu") == ({"numel": 5},)
    assert toy.shapes_for("quick", "cuda") == ({"numel": 1 << 20},)
    # A profile without CPU shapes runs the same shapes on both.
    assert toy.shapes_for("full", "cpu") == toy.shapes_for("full", "cuda")
    assert len(toy.shapes_for("full", "cpu")) == 2
    # A profile the kernel does not declare runs nothing.
    assert toy.shapes_for("compare", "cuda") == ()
    assert toy.shapes_for("compare", "cpu") == ()


def test_catalog_entry_is_plain_data():
    entry = _toy().catalog_entry()
    assert entry["launcher"] == "<lambda>"
    assert entry["providers"] == ["eager", "compile", "copy_", "triton"]
    assert entry["r_baselines"] == ["eager", "compile"]
    assert set(entry["shapes"]) == {"cuda", "cpu"}
    for device in ("cuda", "cpu"):
        assert list(entry["shapes"][device]) == list(PROFILES)
    assert entry["shapes"]["cpu"]["quick"] == [{"shape": {"numel": 5}, "text": "n=5"}]
    assert entry["shapes"]["cuda"]["compare"] == []
    assert entry["goals"] == [
        {
            "regime": "any size",
            "must": [{"metric": "F_bw", "at_least": 0.8, "shape": None, "note": ""}],
            "stretch": [
                {
                    "metric": "R",
                    "at_least": 1.5,
                    "shape": {"numel": 3},
                    "note": "vs eager",
                }
            ],
            "applies_to": ["toy_kernel"],  # what the toy's launch_config gives
        }
    ]
    # What the pages read must survive a JSON round trip unchanged.
    assert json.loads(json.dumps(entry)) == entry


def test_launch_record_holds_options_only_when_set():
    plain = Launch("k", {"BLOCK": 16}, num_warps=4)
    staged = Launch("k", {"BLOCK": 16}, num_warps=8, num_stages=3)
    assert plain.options() == {"num_warps": 4}
    assert plain.record() == {
        "kernel": "k",
        "constexprs": {"BLOCK": 16},
        "num_warps": 4,
    }
    assert staged.record()["num_stages"] == 3


def test_discover_finds_every_module_that_declares_a_descriptor():
    kernel_dir = Path(kernels.inputs.__file__).parent
    modules = {path.stem: path for path in kernel_dir.glob("*.py")}
    packages = {path.parent.name: path for path in kernel_dir.glob("*/describe.py")}
    declaring = sorted(
        name
        for name, path in {**modules, **packages}.items()
        if "\nDESCRIPTOR = " in path.read_text(encoding="utf-8")
    )
    assert NAMES == declaring  # in name order
    assert {"attention", "matmul"} <= set(packages)  # packages are found too
    # Helpers hold no descriptor and are not listed.
    assert not {"descriptor", "inputs", "launches", "bounds", "devices"} & set(NAMES)
    for name, d in DESCRIPTORS.items():
        assert isinstance(d, Descriptor) and d.name == name


def test_the_kernel_functions_get_the_shape_keys_they_name():
    # Declarative: the descriptor spreads the shape over the kernel's own
    # functions; each takes the keys it names and ignores the others.
    toy = _toy(count_bytes=lambda numel, itemsize: numel * itemsize)
    assert toy.bytes_moved({"numel": 5, "version": 1}, 4) == 20
    assert toy.make_inputs({"numel": 3}, torch.float32, "cpu", 0)[0].shape == (3,)
    assert toy.shape_text({"numel": 7}) == "n=7"
    attention = DESCRIPTORS["attention"]
    shape = {"B": 1, "H": 2, "S": 4, "D": 8, "causal": True}
    assert attention.flops(shape) == 4 * 2 * 8 * 10  # causal reaches flops
    assert attention.bytes_moved(shape, 2) == 4 * 2 * 4 * 8 * 2  # and not bytes
    assert attention.call_kwargs(shape) == {"causal": True}


def test_a_shape_that_lacks_a_named_key_is_refused():
    # Known-broken: a shape without a key the cost model names fails at the
    # call instead of counting with a silent default.
    with pytest.raises(TypeError, match="cols"):
        DESCRIPTORS["softmax"].bytes_moved({"rows": 3}, 2)


def test_every_shape_key_is_named_by_some_kernel_function():
    # A misspelt key ("col") would be ignored by every function: refuse it.
    for name, d in DESCRIPTORS.items():
        named = set()
        for fn in (d.operands, d.count_bytes, d.count_flops, d.configure):
            named |= set(inspect.signature(fn).parameters)
        shapes = [s for group in d.shapes.values() for s in group]
        shapes += [b.shape for b in d.artifact_builds]
        for shape in shapes:
            assert set(shape) <= named, f"{name}: {sorted(set(shape) - named)}"


def test_a_goal_applies_to_what_the_launcher_runs_at_its_shapes():
    # New versions beside the launcher's choice are not what a goal measures.
    matmul = DESCRIPTORS["matmul"]
    (goal,) = matmul.goals
    assert matmul.goal_functions(goal) == ["matmul_v2_kernel"]
    attention = DESCRIPTORS["attention"]
    assert attention.goal_functions(attention.goals[0]) == ["attention_v3_kernel"]


def test_kernels_are_found_as_modules_and_packages_without_importing(tmp_path):
    from kernels.descriptor import declared_kernels

    (tmp_path / "flat.py").write_text("x = 1\nDESCRIPTOR = None\n")
    (tmp_path / "helper.py").write_text("def f():\n    pass\n")
    (tmp_path / "grown").mkdir()
    (tmp_path / "grown" / "describe.py").write_text(
        "import nothing_here\nDESCRIPTOR = 0\n"
    )
    (tmp_path / "grown" / "versions.py").write_text("DESCRIPTOR = 0\n")
    assert declared_kernels(tmp_path) == ["flat", "grown"]


def test_kernel_module_finds_each_part_of_a_package_and_of_a_single_file():
    import kernels.residual_add_relu
    import kernels.softmax.describe
    import kernels.softmax.versions

    assert kernel_module("softmax") is kernels.softmax.versions
    assert kernel_module("softmax", "describe") is kernels.softmax.describe
    assert kernel_module("residual_add_relu") is kernels.residual_add_relu
    single = kernel_module("residual_add_relu", "describe")
    assert single is kernels.residual_add_relu


@pytest.mark.parametrize(
    ("name", "part", "message"),
    [
        ("softmax", "launcher", "not 'versions' or 'describe'"),
        ("../evil", "versions", "not a module name"),
    ],
    ids=["unknown-part", "not-a-name"],
)
def test_kernel_module_refuses_an_unknown_part_or_a_path(name, part, message):
    with pytest.raises(ValueError, match=message):
        kernel_module(name, part)


def test_a_kernel_package_init_holds_no_code():
    # One mechanism: the package's parts are its modules; no proxy in between.
    for name in DESCRIPTORS:
        init = Path(kernels.inputs.__file__).parent / name / "__init__.py"
        if init.is_file():
            body = ast.parse(init.read_text(encoding="utf-8")).body
            assert len(body) == 1 and isinstance(body[0], ast.Expr), init
