"""What converted code calls (as ``_cf_rt.*``): each construct decides, when it runs,
between Python semantics and a staged region.

A condition is *variable* when it is a tensor being traced (or a Parameter, whose value
changes between calls): then both branches / the loop body are traced into regions
(:mod:`framework.interpreters.regions`). Anything else is a *constant condition* and
runs the Python way, so programs without tensor conditions trace exactly as before.

Variables of a statement travel as tuples (``names``); within them, tuples/lists/dicts
are flattened and their leaves joined one by one. A loop's Python numbers become 0-d
tensors (int64, float32 or bool) so they can change from one iteration to the next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..errors import SourceLocation, user_location, with_location
from ..interpreters import is_tracing
from ..interpreters.regions import MISSING, RegionMismatch, stage_if, stage_while
from ..ir.graph import GraphModeError, Value
from ..signature import Tree
from ..signature import leaves as leaves_of
from .jumps import FLAGGED_RETURN
from .undefined import _NONE, Undefined


def is_variable(x: Any) -> bool:
    """A tensor whose value is unknown while tracing (traced, or a Parameter)."""
    from ..parameter import Parameter

    return is_tracing() and isinstance(x, Tensor) and (isinstance(x._data, Value) or isinstance(x, Parameter))


def _where(lineno: int) -> SourceLocation | None:
    loc = user_location(3)
    return SourceLocation(loc.filename, lineno, loc.function) if loc else None


def condition(value: Any, what: str, lineno: int) -> Any:
    """A bool tensor with one element for a variable condition, else a Python bool."""
    from ..ops import functional as F

    if not is_variable(value):
        return bool(value)
    if value.size != 1:
        raise GraphModeError(with_location(
            f"graph mode: the condition of {what} is a tensor of shape {value.shape}; it must "
            "have one element (use .any() or .all())", _where(lineno)))
    if value.dtype != np.bool_ and value._data.dtype != np.bool_:
        value = F.not_equal(value, 0)
    return F.reshape(value, ()) if value.shape != () else value


def get(local_vars: dict[str, Any], names: tuple[str, ...],
        global_vars: dict[str, Any] | None = None) -> tuple:
    """The current values of ``names`` (Undefined where a name is not bound yet; one that
    a global of that name stands in for when it is used, see :class:`.undefined.Undefined`)."""
    globals_ = global_vars or {}
    return tuple(local_vars[n] if n in local_vars else Undefined(n, default=globals_.get(n, _NONE))
                 for n in names)


def result(local_vars: dict[str, Any], var: str) -> Any:
    value = local_vars.get(var)
    return None if isinstance(value, Undefined) else value


# -- if --------------------------------------------------------------------------------------
def if_stmt(cond: Any, then_fn: Callable, else_fn: Callable, init: tuple, names: tuple[str, ...],
            lineno: int) -> tuple:
    c = condition(cond, "an if statement", lineno)
    if not isinstance(c, Tensor):
        return then_fn(*init) if c else else_fn(*init)
    return _staged_if(c, lambda: then_fn(*init), lambda: else_fn(*init), names, lineno)


def _staged_if(c: Tensor, then_fn: Callable, else_fn: Callable, names: tuple[str, ...], lineno: int) -> tuple:
    trees: list[list[Tree]] = []

    def branch(fn: Callable) -> Callable[[], list]:
        def run() -> list:
            values = fn()
            trees.append([Tree(v) for v in values])
            return [MISSING if isinstance(leaf, Undefined) else leaf
                    for v in values for leaf in leaves_of(v)]
        return run

    def owner(index: int) -> int:
        pos = 0
        for k, tree in enumerate(trees[0]):
            pos += tree.size
            if index < pos:
                return k
        return -1

    def zero_fill(index: int) -> bool:  # a flagged return value: zeros where not returned
        return names[owner(index)] == FLAGGED_RETURN

    try:
        joined = stage_if(c, branch(then_fn), branch(else_fn), zero_fill)
    except RegionMismatch as error:
        k = owner(error.index) if error.index >= 0 else next(
            (k for k, (a, b) in enumerate(zip(*trees)) if a != b), -1)
        raise _mismatch(error, names[k] if k >= 0 else None, "the two branches of the if",
                        lineno) from None
    out, pos = [], 0
    for k, tree in enumerate(trees[0]):
        leaves = joined[pos:pos + tree.size]
        pos += tree.size
        if any(leaf is MISSING for leaf in leaves):
            out.append(Undefined(names[k], f"is assigned on only one path of the if (at {_where(lineno)})"))
        else:
            out.append(tree.rebuild(leaves))
    return tuple(out)


def _mismatch(error: RegionMismatch, var: str | None, what: str, lineno: int) -> GraphModeError:
    owner = f"variable {var!r}" if var else "a value"
    return GraphModeError(with_location(
        f"graph mode: {owner} differs between {what}: {error.first} vs {error.second}; give it "
        "the same structure, shape and dtype on every path", _where(lineno)))


def ifexp(cond: Any, then: Callable[[], Any], other: Callable[[], Any], lineno: int) -> Any:
    c = condition(cond, "a conditional expression", lineno)
    if not isinstance(c, Tensor):
        return then() if c else other()
    return _staged_if(c, lambda: (then(),), lambda: (other(),), ("<value>",), lineno)[0]


# -- loops -----------------------------------------------------------------------------------
def while_stmt(cond_fn: Callable, body_fn: Callable, init: tuple, names: tuple[str, ...],
               lineno: int) -> tuple:
    values = init
    while True:
        c = condition(cond_fn(*values), "a while loop", lineno)
        if isinstance(c, Tensor):
            return _staged_loop(cond_fn, body_fn, values, names, lineno)
        if not c:
            return values
        values = body_fn(*values)


def _staged_loop(cond_fn: Callable, body_fn: Callable, init: tuple, names: tuple[str, ...],
                 lineno: int, extra: tuple = ()) -> tuple:
    """``init`` values carried through a While; ``extra`` leading Tensors carried too
    (a for loop's counter) and passed first to both functions."""
    from .carry import Carry

    returned = names.index(FLAGGED_RETURN) if FLAGGED_RETURN in names else None
    while True:
        carry = Carry(init, names, lineno)

        def cond(flat: list, carry: Carry = carry) -> Tensor:
            head, values = flat[: len(extra)], carry.unpack(flat[len(extra):])
            return condition(cond_fn(*head, *values), "a while loop", lineno)

        def body(flat: list, carry: Carry = carry) -> list:
            head, values = flat[: len(extra)], carry.unpack(flat[len(extra):])
            out = body_fn(*head, *values)
            head_out, values_out = (out[: len(extra)], out[len(extra):]) if extra else ((), out)
            if returned is not None and carry.kinds[returned] == "local" and \
                    isinstance(values_out[returned], Tensor | tuple | list):
                raise _ReturnsInside(values_out[returned])
            return list(head_out) + carry.pack(values_out)

        try:
            final, _ = stage_while(cond, body, list(extra) + carry.pack(init))
            break
        except RegionMismatch as error:
            raise carry.mismatch(error.index - len(extra), error) from None
        except _ReturnsInside as inside:  # carry the return value too (zeros until set)
            init = init[:returned] + (_zeros_like(inside.value),) + init[returned + 1:]
    return tuple(final[: len(extra)]) + carry.unpack(final[len(extra):], after_loop=True)


class _ReturnsInside(Exception):
    """A ``return`` inside a staged loop gave the flagged return value a tensor: the loop
    is traced again with that value carried (see jumps.py)."""

    def __init__(self, value: Any) -> None:
        super().__init__("return inside a loop")
        self.value = value


def _zeros_like(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return type(value)(_zeros_like(v) for v in value)
    data = value._data
    return Tensor(np.zeros(data.shape, np.dtype(data.dtype)))


class TensorRange:
    """``range(start, stop, step)`` where a bound is a tensor being traced."""

    def __init__(self, *args: Any) -> None:
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        self.start, self.stop, self.step = args


def range_(*args: Any) -> Any:
    if any(is_variable(a) for a in args):
        return TensorRange(*args)
    return range(*[int(a) if isinstance(a, Tensor) else a for a in args])


def for_stmt(iterable: Any, body_fn: Callable, init: tuple, names: tuple[str, ...], lineno: int,
             break_flag: str | None) -> tuple:
    if isinstance(iterable, TensorRange):
        return _staged_range(iterable, body_fn, init, names, lineno, break_flag)
    if isinstance(iterable, Tensor):  # over the first axis (static length)
        iterable = [iterable[i] for i in range(iterable.shape[0])]
    values = init
    stop = names.index(break_flag) if break_flag else None
    for item in iterable:
        if stop is not None and not isinstance(values[stop], Tensor) and values[stop]:
            break
        values = body_fn(item, *values)
    return values


def _staged_range(r: TensorRange, body_fn: Callable, init: tuple, names: tuple[str, ...],
                  lineno: int, break_flag: str | None) -> tuple:
    from ..ops import functional as F

    # the counter takes the bounds' tensor dtype (range(int32 tensor) counts in int32)
    dtype = np.result_type(*[np.dtype(a._data.dtype) for a in (r.start, r.stop, r.step)
                             if isinstance(a, Tensor)])
    start = r.start if isinstance(r.start, Tensor) else Tensor(np.asarray(r.start, dtype))
    counter = F.cast(start, dtype) if np.dtype(start._data.dtype) != dtype else start
    stop_index = names.index(break_flag) if break_flag else None

    def cond(i: Tensor, *values: Any) -> Any:
        going = F.less(i, r.stop) if not is_variable(r.step) and r.step > 0 else (
            F.greater(i, r.stop) if not is_variable(r.step) else
            F.select(F.greater(r.step, 0), F.less(i, r.stop), F.greater(i, r.stop)))
        if stop_index is not None:
            broke = values[stop_index]
            if isinstance(broke, Tensor) or broke:
                going = and_(lambda: going, lambda: not_(broke))
        return going

    def body(i: Tensor, *values: Any) -> tuple:
        return (F.add(i, r.step), *body_fn(i, *values))

    return _staged_loop(cond, body, init, names, lineno, extra=(counter,))[1:]


# -- expressions -----------------------------------------------------------------------------
def _as_bool(x: Any) -> Any:
    from ..ops import functional as F

    if isinstance(x, Tensor):
        return x if np.dtype(x._data.dtype) == np.bool_ else F.not_equal(x, 0)
    return Tensor(np.asarray(bool(x)))


def not_(x: Any) -> Any:
    from ..ops import functional as F

    if is_variable(x):
        return F.equal(_as_bool(x), False)
    return not x


def _logical(thunks: tuple[Callable[[], Any], ...], is_and: bool) -> Any:
    """Python's ``and``/``or`` (short-circuit) until a variable tensor appears; from
    there on the logical operation on bool tensors."""
    from ..ops import functional as F

    result = thunks[0]()
    for thunk in thunks[1:]:
        if not is_variable(result):
            if bool(result) != is_and:
                return result
            result = thunk()
            continue
        a, b = _as_bool(result), _as_bool(thunk())
        result = F.mul(a, b) if is_and else F.add(a, b)  # and / or on bool tensors
    return result


def and_(*thunks: Callable[[], Any]) -> Any:
    return _logical(thunks, True)


def or_(*thunks: Callable[[], Any]) -> Any:
    return _logical(thunks, False)
