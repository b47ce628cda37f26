"""What a candidate module binds at its top level, computed from its syntax
tree without running it (used by ``scripts/qualify/compile_server.py``).

Python's own rules are followed where a value can be known: statements in
order; an ``if`` whose test folds to a value takes that branch; a ``try``
takes its body (the compile process has every module the gate allows);
``NAME = <expression>`` binds what the expression folds to. Folding knows
literals, names already bound, attributes of modules, arithmetic and
comparisons (bounded in size) and ``tl.constexpr(...)``; nothing else is
called. A test that cannot be folded takes neither branch: what either
branch binds is left unknown rather than guessed.
"""

from __future__ import annotations

import ast
import operator
from types import ModuleType


class Unknown(Exception):
    """A value the syntax tree alone does not give."""


BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
UNARY = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
#: Bounds on what folding may build: no power or shift bomb, no huge text.
MAX_SHIFT = 256
MAX_BITS = 4096
MAX_TEXT = 1000
#: The one dunder attribute of a module that folding reads.
MODULE_DUNDERS = ("__version__",)


def resolve(node, scope: dict):
    """The object a name or an attribute chain of a module names in
    `scope`; Unknown otherwise."""
    if isinstance(node, ast.Name):
        if node.id not in scope:
            raise Unknown(node.id)
        return scope[node.id]
    if isinstance(node, ast.Attribute):
        owner = resolve(node.value, scope)
        private = node.attr.startswith("_") and node.attr not in MODULE_DUNDERS
        if not isinstance(owner, ModuleType) or private:
            raise Unknown(node.attr)
        try:
            return getattr(owner, node.attr)
        except AttributeError:
            raise Unknown(node.attr) from None
    raise Unknown(type(node).__name__)


def fold(node, scope: dict):
    """The value of the expression `node` in `scope` (see the docstring);
    Unknown when it is not computable from the tree."""
    import triton.language as tl

    if isinstance(node, ast.Constant):
        return _bounded(node.value)
    if isinstance(node, ast.Name | ast.Attribute):
        value = resolve(node, scope)
        plain = (int, float, str, type(None), ModuleType, tl.constexpr, tl.dtype)
        if not isinstance(value, plain):
            raise Unknown(type(value).__name__)
        return value
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = fold(node.left, scope), fold(node.right, scope)
        _check_operands(node.op, left, right)
        return _bounded(_apply(BINARY[type(node.op)], left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return _apply(UNARY[type(node.op)], fold(node.operand, scope))
    if isinstance(node, ast.BoolOp):
        value = None
        for part in node.values:
            value = fold(part, scope)
            if bool(value) == isinstance(node.op, ast.Or):
                return value
        return value
    if isinstance(node, ast.Compare):
        return _compare(node, scope)
    if isinstance(node, ast.IfExp):
        branch = node.body if fold(node.test, scope) else node.orelse
        return fold(branch, scope)
    if isinstance(node, ast.Call) and _is(node.func, scope, tl.constexpr):
        if len(node.args) != 1 or node.keywords:
            raise Unknown("constexpr")
        return tl.constexpr(_unwrap(fold(node.args[0], scope)))
    raise Unknown(type(node).__name__)


def _compare(node: ast.Compare, scope: dict) -> bool:
    left = fold(node.left, scope)
    for op, right_node in zip(node.ops, node.comparators, strict=True):
        if type(op) not in COMPARE:
            raise Unknown(type(op).__name__)
        right = fold(right_node, scope)
        if not _apply(COMPARE[type(op)], left, right):
            return False
        left = right
    return True


def _apply(function, *values):
    try:
        return function(*values)
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise Unknown(str(exc)) from None


def _unwrap(value):
    import triton.language as tl

    return value.value if isinstance(value, tl.constexpr) else value


def _check_operands(op, left, right) -> None:
    """Refuse, before computing, what would be too big to compute."""
    left, right = _unwrap(left), _unwrap(right)
    if isinstance(op, ast.Pow | ast.LShift) and isinstance(right, int):
        base = abs(left) if isinstance(left, int) else 2
        if abs(right) > MAX_SHIFT or (isinstance(op, ast.Pow) and base > 1 << 16):
            raise Unknown("too large")
    if (
        isinstance(op, ast.Mult)
        and isinstance(left, str | int)
        and isinstance(right, str | int)
    ):
        text = left if isinstance(left, str) else right
        count = right if isinstance(left, str) else left
        if isinstance(text, str) and isinstance(count, int):
            if len(text) * max(count, 0) > MAX_TEXT:
                raise Unknown("too long")


def _bounded(value):
    raw = _unwrap(value)
    if isinstance(raw, int) and raw.bit_length() > MAX_BITS:
        raise Unknown("too large")
    if isinstance(raw, str | bytes) and len(raw) > MAX_TEXT:
        raise Unknown("too long")
    return value


def _is(node, scope: dict, target) -> bool:
    try:
        return resolve(node, scope) is target
    except Unknown:
        return False


def statements(body: list, scope: dict, undecided: set):
    """The module-level statements Python would run, in order, as far as
    the tree tells (see the docstring). Names that a branch not taken for
    want of a value would bind are added to `undecided`."""
    for node in body:
        if isinstance(node, ast.If):
            try:
                taken = node.body if fold(node.test, scope) else node.orelse
            except Unknown:
                undecided.update(bound_names(node.body + node.orelse))
                for name in bound_names(node.body + node.orelse):
                    scope.pop(name, None)
                continue
            yield from statements(taken, scope, undecided)
        elif isinstance(node, ast.Try | getattr(ast, "TryStar", ast.Try)):
            yield from statements(node.body + node.orelse, scope, undecided)
            yield from statements(node.finalbody, scope, undecided)
        else:
            yield node


def bound_names(body: list) -> set[str]:
    """Every name the statements in `body` bind at their own level."""
    names = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name.split(".")[0]) for a in node.names}
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {
                n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
            }
        for field in ("body", "orelse", "finalbody"):
            if not isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ):
                names |= bound_names(getattr(node, field, []))
        for handler in getattr(node, "handlers", []):
            names |= bound_names(handler.body)
    return names
