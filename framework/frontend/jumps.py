"""Rewriting ``return``, ``break`` and ``continue`` so that every block has one exit.

Control flow that may be staged (compiled as a region) cannot jump out of the region,
so before conversion:

- a function's early returns become one tail return: an ``if`` whose branch always
  returns takes the statements after it into its other branch; when every return is
  then the last statement of its block, each ``return e`` becomes an assignment to
  ``_cf_return_value`` and the function ends with ``return _cf_return_value``. Returns
  elsewhere (inside loops) set a flag, break out of the loops and guard the rest;
- a loop's ``break``/``continue`` set flags (``_cf_break_N``, ``_cf_continue_N``); the
  statements after them are guarded by ``if not flag``; a ``while`` loop tests the
  break flag first, a ``for`` loop's body is guarded by it.

The rewritten program means the same in plain Python: with Python conditions it runs
the same statements as the original.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .analysis import always_returns, contains, walk_local

RETURN_VALUE = "_cf_return_value"
RETURNED = "_cf_returned"
FLAGGED_RETURN = "_cf_return_value_f"  # joined with zeros where a path has not returned


def name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def assign(id_: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[name(id_, store=True)], value=value)


def not_(expr: ast.expr) -> ast.expr:
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def _any(ids: list[str]) -> ast.expr:
    return name(ids[0]) if len(ids) == 1 else ast.BoolOp(op=ast.Or(), values=[name(i) for i in ids])


# -- returns ---------------------------------------------------------------------------------


def lower_returns(fn: ast.FunctionDef) -> None:
    """Give ``fn`` a single ``return`` at its end (see the module docstring)."""
    returns = [n for n in walk_local(fn.body) if isinstance(n, ast.Return)]
    if not returns or (len(returns) == 1 and fn.body[-1] is returns[0]):
        return
    body = _lift_tails(fn.body)
    if _tail_only(body):
        fn.body = _assign_returns(body) + [ast.Return(value=_result(RETURN_VALUE))]
    else:
        fn.body = ([assign(RETURNED, ast.Constant(False))] + _flag_returns(body, False)
                   + [ast.Return(value=_result(FLAGGED_RETURN))])


def _result(var: str) -> ast.expr:
    """``_cf_rt.result(locals(), var)``: the returned value, or None if no path set it."""
    return ast.Call(func=ast.Attribute(value=name("_cf_rt"), attr="result", ctx=ast.Load()),
                    args=[ast.Call(func=name("locals"), args=[], keywords=[]), ast.Constant(var)],
                    keywords=[])


def _lift_tails(stmts: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If):
            stmt.body, stmt.orelse = _lift_tails(stmt.body), _lift_tails(stmt.orelse)
            rest = stmts[i + 1:]
            body_returns, else_returns = always_returns(stmt.body), always_returns(stmt.orelse)
            if rest and body_returns != else_returns:
                if body_returns:
                    stmt.orelse = _lift_tails(stmt.orelse + rest)
                else:
                    stmt.body = _lift_tails(stmt.body + rest)
                out.append(stmt)
                return out
            if rest and body_returns and else_returns:  # the rest can never run
                out.append(stmt)
                return out
        out.append(stmt)
    return out


def _tail_only(stmts: list[ast.stmt]) -> bool:
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return):
            return i == len(stmts) - 1
        if isinstance(stmt, ast.If):
            if not (_tail_only(stmt.body) and _tail_only(stmt.orelse)):
                return False
        elif contains([stmt], ast.Return):
            return False
    return True


def _assign_returns(stmts: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            out.append(ast.copy_location(assign(RETURN_VALUE, stmt.value or ast.Constant(None)), stmt))
        elif isinstance(stmt, ast.If):
            stmt.body, stmt.orelse = _assign_returns(stmt.body), _assign_returns(stmt.orelse)
            out.append(stmt)
        else:
            out.append(stmt)
    return out


def _flag_returns(stmts: list[ast.stmt], in_loop: bool) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return):
            out += [ast.copy_location(assign(FLAGGED_RETURN, stmt.value or ast.Constant(None)), stmt),
                    assign(RETURNED, ast.Constant(True))]
            if in_loop:
                out.append(ast.Break())
            return out
        if not contains([stmt], ast.Return):
            out.append(stmt)
            continue
        if isinstance(stmt, ast.If):
            stmt.body = _flag_returns(stmt.body, in_loop)
            stmt.orelse = _flag_returns(stmt.orelse, in_loop)
            out.append(stmt)
        elif isinstance(stmt, ast.For | ast.While):
            stmt.body = _flag_returns(stmt.body, True)
            out.append(stmt)
            if in_loop:
                out.append(ast.copy_location(ast.If(test=name(RETURNED), body=[ast.Break()], orelse=[]),
                                             stmt))
        elif isinstance(stmt, ast.With):
            stmt.body = _flag_returns(stmt.body, in_loop)
            out.append(stmt)
        else:
            out.append(stmt)  # e.g. a return inside try: refused by the transformer
        rest = _flag_returns(stmts[i + 1:], in_loop)
        if rest:
            out.append(ast.copy_location(ast.If(test=not_(name(RETURNED)), body=rest, orelse=[]), rest[0]))
        return out
    return out


# -- break and continue ----------------------------------------------------------------------


def _guard(stmts: list[ast.stmt], rewrite: Callable[[ast.stmt], list[ast.stmt] | None],
           stop: Callable[[], ast.expr]) -> list[ast.stmt]:
    """Replace jumps with ``rewrite``; guard what follows a statement that may jump."""
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        replaced = rewrite(stmt)
        if replaced is not None:
            return out + replaced  # what follows a jump never runs
        if not contains([stmt], (ast.Break, ast.Continue), into_loops=False):
            out.append(stmt)
            continue
        if isinstance(stmt, ast.If):
            stmt.body, stmt.orelse = _guard(stmt.body, rewrite, stop), _guard(stmt.orelse, rewrite, stop)
        elif isinstance(stmt, ast.With):
            stmt.body = _guard(stmt.body, rewrite, stop)
        out.append(stmt)
        rest = _guard(stmts[i + 1:], rewrite, stop)
        if rest:
            out.append(ast.copy_location(ast.If(test=not_(stop()), body=rest, orelse=[]), rest[0]))
        return out
    return out


def lower_loop_jumps(loop: ast.For | ast.While, index: int) -> list[ast.stmt]:
    """The statements replacing ``loop``: flag set-up, then the loop without jumps.

    A ``for`` loop with a break gets ``loop._cf_break`` (the flag's name) for the runtime.
    """
    has_break = contains(loop.body, ast.Break, into_loops=False)
    has_continue = contains(loop.body, ast.Continue, into_loops=False)
    loop._cf_break = None  # type: ignore[attr-defined]
    if not (has_break or has_continue):
        return [loop]
    brk, cont = f"_cf_break_{index}", f"_cf_continue_{index}"
    flags = ([brk] if has_break else []) + ([cont] if has_continue else [])

    def rewrite(stmt: ast.stmt) -> list[ast.stmt] | None:
        if isinstance(stmt, ast.Break):
            return [ast.copy_location(assign(brk, ast.Constant(True)), stmt)]
        if isinstance(stmt, ast.Continue):
            return [ast.copy_location(assign(cont, ast.Constant(True)), stmt)]
        return None

    body = _guard(loop.body, rewrite, lambda: _any(flags))
    if has_continue:
        body = [assign(cont, ast.Constant(False))] + body
    pre: list[ast.stmt] = []
    if has_break:
        pre.append(ast.copy_location(assign(brk, ast.Constant(False)), loop))
        if isinstance(loop, ast.While):
            loop.test = ast.BoolOp(op=ast.And(), values=[not_(name(brk)), loop.test])
        else:
            body = [ast.copy_location(ast.If(test=not_(name(brk)), body=body, orelse=[]), loop)]
            loop._cf_break = brk  # type: ignore[attr-defined]
    loop.body = body
    return pre + [loop]
