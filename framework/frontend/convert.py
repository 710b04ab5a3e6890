"""Converting a user function's source for graph mode (AutoGraph's design: a source-to-
source rewrite of control flow into runtime calls that run Python conditions as Python and
stage tensor conditions as regions).

``convert(fn)`` reads ``fn``'s source, rewrites its control flow (:mod:`.transformer`) and
compiles it again with the same file name and line numbers, in ``fn``'s globals and with
its closure values; the result behaves as ``fn`` wherever conditions are Python values.
Conversions are cached per code object and module globals. Functions of the framework
itself, of installed packages and of the standard library are left alone, and so is a
function whose source cannot be read (a lambda, code typed at a prompt): it is traced as
it is. A framework module written as graph-mode source, as a user's would be (the train
cells of framework/train, with ``if`` on tensors), says so with ``GRAPH_MODE_SOURCE =
True``.
"""

from __future__ import annotations

import ast
import inspect
import os
import sysconfig
import textwrap
import types
from collections.abc import Callable
from typing import Any

from ..errors import _PACKAGE_DIR
from .transformer import RT, Transformer

_SKIP_DIRS = tuple({os.path.abspath(p) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
                    if (p := sysconfig.get_paths().get(key))})
_UNCONVERTIBLE = object()
# (code object, id of its globals) -> (those globals, factory): equal code objects (the same
# function in two files or modules compares equal) must not share one module's globals
_cache: dict[tuple[types.CodeType, int], tuple[dict[str, Any], Any]] = {}


def is_user_code(filename: str) -> bool:
    path = os.path.abspath(filename)
    return (not filename.startswith("<") and not path.startswith(_PACKAGE_DIR)
            and not path.startswith(_SKIP_DIRS))


def convert(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its control flow converted (or ``fn`` itself, see the module doc)."""
    if isinstance(fn, types.MethodType):
        inner = convert(fn.__func__)
        return fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)
    if not isinstance(fn, types.FunctionType) or fn.__name__ == "<lambda>":
        return fn
    code = fn.__code__
    if not is_user_code(code.co_filename) and fn.__globals__.get("GRAPH_MODE_SOURCE") is not True:
        return fn
    if RT in code.co_freevars:  # defined in converted code: converted with it already
        return fn
    key = (code, id(fn.__globals__))
    entry = _cache.get(key)
    if entry is None or entry[0] is not fn.__globals__:
        entry = _cache[key] = (fn.__globals__, _compile(fn))
    factory = entry[1]
    if factory is _UNCONVERTIBLE:
        return fn
    try:
        closure = [cell.cell_contents for name, cell in zip(code.co_freevars, fn.__closure__ or ())
                   if name != "_cf_rt"]
    except ValueError:  # an empty closure cell (not assigned yet): trace as it is
        return fn
    from . import rt

    new = factory(rt, *closure)
    new.__defaults__, new.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    new.__wrapped__ = fn
    return new


def _compile(fn: types.FunctionType) -> Any:
    # the source of fn's own code: inspect.getsource(fn) follows __wrapped__, which for a
    # functools.wraps decorator is another function with other globals and free variables
    code = fn.__code__
    try:
        source = textwrap.dedent(inspect.getsource(code))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return _UNCONVERTIBLE
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != code.co_name:
        return _UNCONVERTIBLE
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    qualname = code.co_qualname
    owner = qualname.rsplit(".", 2)[-2] if "." in qualname else None
    if owner and owner != "<locals>":
        _Mangle(owner).visit(fdef)
    filename = fn.__code__.co_filename
    fdef = Transformer(filename, code.co_name).visit(fdef)
    # a function defined inside converted code sees the runtime as a free variable already
    freevars = [v for v in code.co_freevars if v != RT]
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in [RT, *freevars]],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    factory = ast.FunctionDef(name="_cf_factory", args=args,
                              body=[fdef, ast.Return(value=ast.Name(id=code.co_name, ctx=ast.Load()))],
                              decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[ast.copy_location(factory, fdef)], type_ignores=[])
    ast.fix_missing_locations(module)
    namespace: dict[str, Any] = {}
    exec(compile(module, filename, "exec"), fn.__globals__, namespace)  # noqa: S102
    return namespace["_cf_factory"]


class _Mangle(ast.NodeTransformer):
    """Private names (``self.__x``) as the class body compiled them (``_Cls__x``)."""

    def __init__(self, owner: str) -> None:
        self.prefix = "_" + owner.lstrip("_")

    def _mangle(self, name: str) -> str:
        if name.startswith("__") and not name.endswith("__"):
            return self.prefix + name
        return name

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        node.attr = self._mangle(node.attr)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._mangle(node.id)
        return node
