"""The source transformer: Python control flow -> calls of :mod:`.runtime`.

Each statement that may be staged becomes nested functions over the variables it
assigns, and one runtime call that decides, when it runs, whether the condition is a
Python value (run the Python way: fold the ``if``, unroll the loop) or a tensor being
traced (build an ``If``/``While`` region):

    if c:                       def _cf_then_3(x): x = x + 1; return (x,)
        x = x + 1        ->     def _cf_else_3(x): return (x,)
                                (x,) = _cf_rt.if_stmt(c, _cf_then_3, _cf_else_3,
                                                      _cf_rt.get(locals(), ('x',)), ('x',), 12)

Likewise ``while`` (a condition function and a body function), ``for`` (a body taking the
item), ``a if c else b``, ``and``/``or``/``not``, ``print`` (a runtime print in graph mode),
``x[i] = v`` (rebinding ``x`` to an updated tensor), calls of user functions (converted
on first call, as MindSpore parses the functions a ``construct`` calls), ``map``,
``filter``, ``zip``, ``enumerate``, ``int``, ``float``, ``max``, ``min`` (their graph-mode
forms, :mod:`.pyobjects`) and ``assert``. A variable read
before the function assigns it reads the global of that name (as MindSpore resolves it).
Generated names start with ``_cf_``; line numbers are the user's, so errors and
``file:line`` in the IR point at their source.
"""

from __future__ import annotations

import ast
import itertools

from ..errors import SourceLocation
from ..ir.graph import GraphModeError
from .analysis import assigned_names
from .jumps import FLAGGED_RETURN, lower_loop_jumps, lower_returns, name

RT = "_cf_rt"
_UNSUPPORTED = {
    ast.Try: "try/except", ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Delete: "del",
    ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Await: "await",
    ast.AsyncFor: "async for", ast.AsyncWith: "async with", ast.AsyncFunctionDef: "async def",
    ast.Match: "match",
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED[ast.TryStar] = "try/except*"
# Builtins with a graph-mode form (:mod:`.pyobjects`): containers, values of constants.
_FOLDED_CALLS = {"map", "filter", "zip", "enumerate", "int", "float", "max", "min"}
# Calls left as they are (builtins that must see the caller's frame, or are cheap).
_PLAIN_CALLS = {"super", "locals", "globals", "isinstance", "issubclass", "len", "range", "print",
                "type", "getattr", "setattr", "hasattr", "int", "float", "bool", "str", "tuple",
                "list", "dict", "zip", "enumerate", "min", "max", "abs", "sum", "all", "any",
                "reversed", "sorted", "map", "filter", "id", "repr", "iter", "next"}


def _rt(attr: str) -> ast.Attribute:
    return ast.Attribute(value=name(RT), attr=attr, ctx=ast.Load())


def _call(attr: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_rt(attr), args=list(args), keywords=[])


def _strs(names: list[str]) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _lambda(body: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=body)


def _def(fn_name: str, params: list[str], body: list[ast.stmt], returns: list[str]) -> ast.FunctionDef:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    ret = ast.Return(value=ast.Tuple(elts=[name(n) for n in returns], ctx=ast.Load()))
    return ast.FunctionDef(name=fn_name, args=args, body=(body or [ast.Pass()]) + [ret],
                           decorator_list=[], returns=None, type_params=[])


class Transformer(ast.NodeTransformer):
    """Converts one function (and the functions nested in it)."""

    def __init__(self, filename: str, function: str) -> None:
        self.filename = filename
        self.function = function
        self.ids = itertools.count()

    def refuse(self, node: ast.AST, what: str) -> GraphModeError:
        where = SourceLocation(self.filename, getattr(node, "lineno", 0), self.function)
        return GraphModeError(
            f"graph mode does not support {what} (at {where}); move it out of the compiled "
            "function, or run this code in PyNative mode (ms.set_context(mode=ms.PYNATIVE_MODE))")

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for kind, what in _UNSUPPORTED.items():
            if isinstance(node, kind):
                raise self.refuse(node, what)
        return super().generic_visit(node)

    # -- functions ---------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        lower_returns(node)
        node.decorator_list = []
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        return self.generic_visit(node)

    # -- statements --------------------------------------------------------------------------
    def _vars(self, names: list[str]) -> ast.Call:
        return _call("get", ast.Call(func=name("locals"), args=[], keywords=[]), _strs(names),
                     ast.Call(func=name("globals"), args=[], keywords=[]))

    def _bind(self, names: list[str], call: ast.Call, where: ast.AST) -> ast.stmt:
        """``names = call``, located on the first line of ``where`` (the if/while/for), so
        the nodes the call builds carry that line."""
        target = ast.Tuple(elts=[name(n, store=True) for n in names], ctx=ast.Store())
        stmt = ast.Assign(targets=[target], value=call) if names else ast.Expr(value=call)
        for node in ast.walk(stmt):
            if "lineno" in node._attributes and getattr(node, "lineno", None) is None:
                node.lineno = node.end_lineno = where.lineno
                node.col_offset, node.end_col_offset = where.col_offset, where.col_offset + 1
        return stmt

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        names = assigned_names(node.body + node.orelse)
        self.generic_visit(node)
        k = next(self.ids)
        then_def = _def(f"_cf_then_{k}", names, node.body, names)
        else_def = _def(f"_cf_else_{k}", names, node.orelse, names)
        call = _call("if_stmt", node.test, name(then_def.name), name(else_def.name),
                     self._vars(names), _strs(names), ast.Constant(node.lineno))
        return [ast.copy_location(then_def, node), ast.copy_location(else_def, node),
                self._bind(names, call, node)]

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        if node.orelse:
            raise self.refuse(node, "while ... else")
        stmts = lower_loop_jumps(node, next(self.ids))
        names = assigned_names(stmts)
        self.generic_visit(node)
        k = next(self.ids)
        cond_def = ast.copy_location(_def(f"_cf_cond_{k}", names, [], []), node)
        cond_def.body = [ast.Return(value=node.test)]
        body_def = ast.copy_location(_def(f"_cf_body_{k}", names, node.body, names), node)
        call = _call("while_stmt", name(cond_def.name), name(body_def.name), self._vars(names),
                     _strs(names), ast.Constant(node.lineno))
        pre = [self.visit(s) for s in stmts[:-1]]
        return pre + [cond_def, body_def, self._bind(names, call, node)]

    def visit_For(self, node: ast.For) -> list[ast.stmt]:
        if node.orelse:
            raise self.refuse(node, "for ... else")
        stmts = lower_loop_jumps(node, next(self.ids))
        brk = node._cf_break  # type: ignore[attr-defined]
        names = assigned_names(stmts)
        item = ast.Assign(targets=[node.target], value=name("_cf_item"))
        node.body = [ast.copy_location(item, node)] + node.body
        self.generic_visit(node)
        k = next(self.ids)
        body_def = ast.copy_location(_def(f"_cf_body_{k}", ["_cf_item"] + names, node.body, names), node)
        iterable = node.iter
        if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
                and iterable.func.id == "range"):
            iterable = ast.copy_location(_call("range_", *iterable.args), iterable)
        call = _call("for_stmt", iterable, name(body_def.name), self._vars(names), _strs(names),
                     ast.Constant(node.lineno), ast.Constant(brk))
        pre = [self.visit(s) for s in stmts[:-1]]
        return pre + [body_def, self._bind(names, call, node)]

    def visit_Assign(self, node: ast.Assign) -> ast.stmt:
        self.generic_visit(node)
        target = node.targets[0]
        if (len(node.targets) == 1 and isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)):
            base = target.value.id
            call = _call("setitem", name(base), target.slice, node.value)
            return ast.copy_location(ast.Assign(targets=[name(base, store=True)], value=call), node)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        target = node.target
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            load = ast.Subscript(value=name(target.value.id), slice=target.slice, ctx=ast.Load())
            value = ast.BinOp(left=load, op=node.op, right=node.value)
            return self.visit_Assign(ast.copy_location(ast.Assign(targets=[target], value=value), node))
        self.generic_visit(node)
        return node

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        self.generic_visit(node)
        msg = _lambda(node.msg) if node.msg is not None else ast.Constant(None)
        return ast.copy_location(ast.Expr(value=_call("assert_", node.test, msg)), node)

    # -- expressions -------------------------------------------------------------------------
    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        return ast.copy_location(_call(fn, *[_lambda(v) for v in node.values]), node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("not_", node.operand), node)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        call = _call("ifexp", node.test, _lambda(node.body), _lambda(node.orelse),
                     ast.Constant(node.lineno))
        return ast.copy_location(call, node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            node.func = ast.copy_location(_rt("print_"), func)
        elif isinstance(func, ast.Name) and func.id in _FOLDED_CALLS:
            node.func = ast.copy_location(_call("builtin", func), func)
        elif not (isinstance(func, ast.Name) and func.id in _PLAIN_CALLS):
            node.func = ast.copy_location(_call("converted", func), func)
        return node


__all__ = ["FLAGGED_RETURN", "RT", "Transformer"]
