"""Questions the source transformer asks of Python syntax trees."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

# Nodes opening a scope of their own: names bound inside do not belong to the enclosing
# function, and jumps inside do not leave it.
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
          ast.SetComp, ast.DictComp, ast.GeneratorExp)
LOOPS = (ast.For, ast.While, ast.AsyncFor)


def walk_local(nodes: Iterable[ast.AST], into_loops: bool = True) -> Iterator[ast.AST]:
    """Every node under ``nodes`` in this scope (not inside nested functions, lambdas,
    classes or comprehensions; not inside nested loops unless ``into_loops``)."""
    stack = [(node, not isinstance(node, SCOPES)) for node in list(nodes)[::-1]]
    while stack:
        node, descend = stack.pop()
        yield node
        if not descend:
            continue
        for child in reversed(list(ast.iter_child_nodes(node))):
            inner = not isinstance(child, SCOPES) and (into_loops or not isinstance(child, LOOPS))
            stack.append((child, inner))


def _target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for elt in target.elts:
            yield from _target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)
    elif isinstance(target, ast.Subscript):  # x[i] = v rebinds x (see the transformer)
        base = target.value
        while isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name):
            yield base.id


def assigned_names(stmts: Iterable[ast.AST]) -> list[str]:
    """Local names bound by ``stmts`` (assignments, loop targets, ``with ... as``,
    walrus, imports), in order of first appearance."""
    names: dict[str, None] = {}
    for node in walk_local(stmts):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
            targets = [node.target]
        elif isinstance(node, ast.For):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.setdefault((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.setdefault(node.name)
        for target in targets:
            for name in _target_names(target):
                names.setdefault(name)
    return list(names)


def contains(stmts: Iterable[ast.AST], kinds: type | tuple[type, ...], into_loops: bool = True) -> bool:
    return any(isinstance(n, kinds) for n in walk_local(stmts, into_loops))


def always_returns(stmts: list[ast.stmt]) -> bool:
    """Whether every path through ``stmts`` ends in ``return`` or ``raise``."""
    for stmt in stmts:
        if isinstance(stmt, ast.Return | ast.Raise):
            return True
        if isinstance(stmt, ast.If) and always_returns(stmt.body) and always_returns(stmt.orelse):
            return True
    return False
