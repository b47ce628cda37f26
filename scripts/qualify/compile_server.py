"""The parent's compile process (started by ``Compiler`` in
``scripts/qualify/compile_check.py``; ``python -m
scripts.qualify.compile_server``): not interpreted, in the candidate's
sandbox, as ``nobody`` when root. It reads the parent's private copy of the
source and rebuilds the module's namespace from its syntax tree
(``scripts/qualify/module_reader.py``): no statement of the module runs,
but what Python would bind is bound where the tree gives it (decided
``if`` branches, ``try`` bodies, globals whose values fold). Each function
made a kernel by ``@triton.jit`` or ``triton.jit(fn)`` (whatever the
spelling resolves to) is defined bare (defaults folded, annotations reduced
to ``constexpr``) in that namespace; other functions become stand-ins that
fail when a kernel calls them. Each requested specialisation is compiled
with ``triton.compile`` for a CUDA sm_90a target, which needs no GPU (as
``scripts/artifacts`` compiles the project's kernels).

What still runs is what Triton's code generator evaluates while compiling
a kernel's body (calls it makes at compile time): the static gate limits
what a body can name, and the sandbox what it can reach.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path

from scripts.qualify import module_reader
from scripts.qualify.compile_check import TARGET

JIT_OPTIONS = ("do_not_specialize", "do_not_specialize_on_alignment", "noinline")


#: Where a namespace keeps its kernels by the name of their ``def`` (what a
#: launch's record names): not an identifier, so no kernel body can name it.
KERNELS = "qualify kernels"


def kernel_namespace(path: str) -> dict:
    """The candidate's module namespace as far as its syntax tree gives it
    (``scripts/qualify/module_reader.py``): the ``triton`` and ``math``
    imports, globals whose values fold, and every function; one made a
    kernel by ``@triton.jit`` or by ``NAME = triton.jit(fn)`` becomes a
    JITFunction, the rest stand-ins that cannot be compiled. Nothing the
    module's statements would do runs."""
    import math

    import triton

    text = Path(path).read_text(encoding="utf-8")
    tree = ast.parse(text, filename=path)
    namespace: dict = {"__name__": "qualify_compile", "__builtins__": {}}
    kernels: dict = {}
    defs: dict = {}
    undecided: set = set()
    for node in module_reader.statements(tree.body, namespace, undecided):
        if isinstance(node, ast.Import | ast.ImportFrom):
            _bind_import(node, namespace, triton, math)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            _bind_global(node, namespace, kernels, defs, path)
        elif isinstance(node, ast.FunctionDef):
            defs[node.name] = node
            jit = [
                d for d in node.decorator_list if _jit_options(d, namespace) is not None
            ]
            options = _jit_options(jit[0], namespace) if jit else None
            namespace[node.name] = _define(node, path, namespace, options)
            if jit:
                kernels[node.name] = namespace[node.name]
            else:
                kernels.pop(node.name, None)
    for name in undecided - set(namespace):
        namespace[name] = _stand_in(
            name, f"{name} is bound under a condition the compile check cannot decide"
        )
    namespace[KERNELS] = kernels
    return namespace


def _bind_import(node, namespace: dict, triton, math) -> None:
    import importlib

    allowed = ("triton", "math")
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] not in allowed:
                continue
            if alias.asname:
                namespace[alias.asname] = importlib.import_module(alias.name)
            else:
                top = alias.name.split(".")[0]
                namespace[top] = importlib.import_module(top)
                importlib.import_module(alias.name)
        return
    if node.level or not node.module or node.module.split(".")[0] not in allowed:
        return
    module = importlib.import_module(node.module)
    for alias in node.names:
        value = getattr(module, alias.name, None)
        if value is None:
            try:
                value = importlib.import_module(f"{node.module}.{alias.name}")
            except ImportError:
                continue
        namespace[alias.asname or alias.name] = value


def _bind_global(node, namespace: dict, kernels: dict, defs: dict, path) -> None:
    """``NAME = <expression>`` as Python binds it (an annotation changes
    nothing, for Python as for Triton, which reads only ``tl.constexpr``
    values as globals); ``NAME = triton.jit(fn)`` makes `fn` a kernel."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if node.value is None or len(names) != len(targets):
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Store):
                    namespace.pop(part.id, None)  # not `triton` of triton.x = ...
        return
    value = _jit_call(node.value, namespace, defs, path)
    if value is not None:
        kernels[value.fn.__name__] = value
    else:
        try:
            value = module_reader.fold(node.value, namespace)
        except module_reader.Unknown:
            for name in names:
                namespace.pop(name, None)
            return
    for name in names:
        namespace[name] = value


def _jit_call(value, namespace: dict, defs: dict, path):
    """The JITFunction `value` makes when it is ``triton.jit(fn, ...)`` or
    ``triton.jit(...)(fn)`` of a function defined above; else None."""
    if not isinstance(value, ast.Call) or len(value.args) != 1:
        return None
    function = value.args[0]
    if not isinstance(function, ast.Name) or function.id not in defs:
        return None
    options = None
    if isinstance(value.func, ast.Call):  # triton.jit(...)(fn)
        options = _jit_options(value.func, namespace)
    elif _is_jit(value.func, namespace):  # triton.jit(fn, ...)
        options = _literal_options(value.keywords)
    if options is None:
        return None
    return _define(defs[function.id], path, namespace, options)


def _is_jit(node, namespace: dict) -> bool:
    import triton
    from triton.runtime import jit

    try:
        found = module_reader.resolve(node, namespace)
    except module_reader.Unknown:
        return False
    return found is triton.jit or found is jit.jit


def _jit_options(decorator, namespace: dict) -> dict | None:
    """The JITFunction options of a decorator that is ``triton.jit`` (by
    what it resolves to, however it is spelled) or a call of it; else None."""
    if _is_jit(decorator, namespace):
        return {}
    if isinstance(decorator, ast.Call) and not decorator.args:
        if _is_jit(decorator.func, namespace):
            return _literal_options(decorator.keywords)
    return None


def _literal_options(keywords) -> dict:
    options = {}
    for keyword in keywords:
        if keyword.arg in JIT_OPTIONS:
            try:
                options[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, SyntaxError):
                pass
    return options


def _define(node: ast.FunctionDef, path: str, namespace: dict, options):
    """A JITFunction of the bare `node` (`options`: its jit options), or a
    stand-in when `options` is None (a plain function) or a default has no
    value the tree gives."""
    from triton.runtime.jit import JITFunction

    if options is None:
        return _stand_in(node.name)
    try:
        arguments = _literal_arguments(node.args, namespace)
    except CompileRefusal as refusal:
        return _stand_in(node.name, str(refusal))
    bare = ast.FunctionDef(
        name=node.name,
        args=arguments,
        body=node.body,
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    ast.copy_location(bare, node)
    module = ast.fix_missing_locations(ast.Module(body=[bare], type_ignores=[]))
    scope: dict = {}
    exec(compile(module, path, "exec"), namespace, scope)  # a def: nothing runs
    # JITFunction, not triton.jit: compiled, whatever TRITON_INTERPRET says
    return JITFunction(scope[node.name], **options)


def _literal_arguments(args: ast.arguments, namespace: dict) -> ast.arguments:
    """The parameters with annotations reduced to constexpr or nothing, and
    defaults as the module's constants give them (a literal, a constant, a
    ``tl.`` dtype, an expression of them)."""

    def annotation(arg):
        text = ast.unparse(arg.annotation) if arg.annotation else ""
        return ast.Constant("constexpr") if "constexpr" in text else None

    def literal(node):
        try:
            value = module_reader.fold(node, namespace)
        except module_reader.Unknown:
            raise CompileRefusal(
                f"a parameter's default ({ast.unparse(node)[:60]}) is not a "
                "literal or a value the module's constants give"
            ) from None
        if value is None or type(value) in (bool, int, float, str):
            return ast.Constant(value)
        name = f"_qualify_default_{len(namespace)}"  # a dtype or constexpr
        namespace[name] = value
        return ast.Name(name, ast.Load())

    plain = [ast.arg(a.arg, annotation(a)) for a in args.args]
    return ast.arguments(
        posonlyargs=[],
        args=plain,
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[literal(d) for d in args.defaults],
    )


class CompileRefusal(Exception):
    """A kernel the compile check cannot take from the source."""


def _stand_in(name: str, why: str | None = None):
    """What a kernel body finds under `name` when it is no kernel here: a
    function that raises when the compiler calls it."""
    why = why or f"{name} is a plain Python function, not @triton.jit"

    def stand_in(*args, **kwargs):
        raise CompileRefusal(why)

    stand_in.__qualname__ = name  # what the compiler's message shows
    stand_in.__name__ = name
    return stand_in


def compile_spec(namespace: dict, spec: dict) -> None:
    """Compile one specialisation for sm_90a; raises what the compiler
    raises, or CompileRefusal."""
    import triton
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    name = spec["kernel"]
    fn = namespace.get(KERNELS, {}).get(name) or namespace.get(name)
    if (
        callable(fn)
        and not isinstance(fn, JITFunction)
        and "<locals>" not in (spec["qualname"])
    ):
        fn()  # a stand-in: raises why it is no kernel here
    if "<locals>" in spec["qualname"] or not isinstance(fn, JITFunction):
        raise CompileRefusal(
            f"{name} is not a @triton.jit function at the top level of the file"
        )
    claimed = {item[0]: item[1:] for item in spec["params"]}
    if sorted(claimed) != sorted(p.name for p in fn.params):
        raise CompileRefusal(f"the launch's arguments do not match {name}'s parameters")
    signature, constexprs, attrs = {}, {}, {}
    for index, param in enumerate(fn.params):
        kind, value = claimed[param.name]
        if kind in ("missing", "unsupported"):
            raise CompileRefusal(f"argument {param.name}: {kind} ({value})")
        if param.is_constexpr:
            signature[param.name] = "constexpr"
            constexprs[(index,)] = _value(value, param.name)
            continue
        if kind == "constexpr":  # 1 or None, specialised unless told not to
            if param.do_not_specialize and value == 1:
                signature[param.name] = "i32"
                continue
            signature[param.name] = "constexpr"
            constexprs[(index,)] = value
            continue
        signature[param.name] = kind
        aligned = not param.do_not_specialize and not (
            param.do_not_specialize_on_alignment
        )
        if value == "D" and aligned:
            attrs[(index,)] = BaseBackend.parse_attr("D")
    source = ASTSource(fn, signature, constexprs, attrs)
    compiled = triton.compile(
        source, target=GPUTarget(*TARGET), options=dict(spec["options"])
    )
    if ".target sm_90a" not in compiled.asm["ptx"]:
        raise RuntimeError("the PTX is not for sm_90a")


def _value(value, name: str):
    import triton.language as tl

    if isinstance(value, dict):
        if "dtype" in value:
            return tl.dtype(value["dtype"])
        raise CompileRefusal(f"constexpr {name} is a {value.get('unsupported')}")
    return value


def error_message(exc: BaseException) -> str:
    """One line for a compile failure: the type and the last line."""
    lines = str(exc).strip().splitlines() or [""]
    text = re.sub(r" at 0x[0-9a-f]+", "", lines[-1])[:300]
    return f"{type(exc).__name__}: {text}"


WARM_KERNEL = """
import triton
import triton.language as tl


@triton.jit
def warm(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
"""


def _warm_up() -> None:
    """Compile a small kernel once, so every module the compiler loads is
    loaded before this process becomes nobody (and the first real compile
    is quick)."""
    path = Path(os.environ.get("TMPDIR", "/tmp")) / "warm.py"
    path.write_text(WARM_KERNEL)
    spec = {
        "kernel": "warm",
        "qualname": "warm",
        "params": [
            ["x_ptr", "*fp32", "D"],
            ["n", "i32", ""],
            ["BLOCK", "constexpr", 64],
        ],
        "options": {},
    }
    compile_spec(kernel_namespace(str(path)), spec)


def _give_to_nobody(top: Path, uid: int) -> None:
    for folder, dirs, files in os.walk(top):
        for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.chown(name, uid, uid, follow_symlinks=False)


def serve() -> None:
    """The compile process: one JSON request per line on stdin, {"id",
    "source", "spec"}; one reply per line, {"id", "error"} (None: it
    compiled). Namespaces are kept per source file."""
    from scripts.qualify import sandbox

    sandbox.die_with_parent()
    _warm_up()  # as the starting user: nobody cannot read every module's file
    if os.geteuid() == 0:
        _give_to_nobody(Path(os.environ["TMPDIR"]), sandbox.NOBODY)
    if sandbox.drop_to_nobody(None):
        sandbox.die_with_parent()
    sandbox.limit_resources(sandbox.MEMORY_BYTES_DEFAULT)
    out = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # stray prints go nowhere
    namespaces: dict[str, dict] = {}
    for line in sys.stdin:
        request = json.loads(line)
        error = None
        try:
            if request["source"] not in namespaces:
                namespaces[request["source"]] = kernel_namespace(request["source"])
            compile_spec(namespaces[request["source"]], request["spec"])
        except Exception as exc:  # the candidate's kernel, not ours
            error = error_message(exc)
        out.write(json.dumps({"id": request["id"], "error": error}) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
