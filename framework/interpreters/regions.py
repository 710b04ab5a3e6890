"""Tracing control flow on tensor values into ``If`` / ``While`` nodes.

The contract with the callers (the source frontend's runtime and the control-flow
bprops), all while a :class:`TraceInterpreter` is current:

- :func:`stage_if` ``(cond, then_fn, else_fn) -> list[Tensor]``: both functions take no
  arguments and return a list of Tensors with equal shapes and dtypes, position by
  position; each is traced once into its own region graph.
- :func:`stage_while` ``(cond_fn, body_fn, init) -> (list[Tensor], Tensor)``:
  ``cond_fn(carried) -> Tensor`` (one bool element) and ``body_fn(carried) -> list``
  with the specs of ``init``; returns the final carried values and the trip count.

Parameters assigned inside a region become outputs of the node (and loop-carried values
of a ``While``), then are assigned in the enclosing scope: ``self.w = w + 1`` inside a
branch or loop behaves as in Python. Mismatched specs raise :class:`RegionMismatch`
naming the position, which the caller turns into a message naming the variable.
The tape is paused inside regions; the node as a whole is recorded on it, and its bprop
(:mod:`framework.autograd.control`) differentiates the region graphs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd import tape as _tape
from ..ir.control import If, While
from ..ir.graph import Graph, Value
from . import current
from .trace import Scope, TraceInterpreter


class RegionMismatch(ValueError):
    """Two paths give different values at output ``index`` (-1: different counts);
    ``first`` and ``second`` describe them (``float32[2, 3]``, ``int 3``, ``undefined``)."""

    def __init__(self, index: int, first: Any, second: Any, what: str) -> None:
        self.index, self.first, self.second = index, describe(first), describe(second)
        super().__init__(f"{what}: output {index} is {self.first} on one path and "
                         f"{self.second} on the other")


def describe(v: Any) -> str:
    """A value as mismatch messages show it: a spec for tensors and IR values."""
    if v is MISSING:
        return "undefined"
    data = getattr(v, "_data", v)
    if hasattr(data, "shape") and hasattr(data, "dtype"):
        return f"{np.dtype(data.dtype).name}{list(data.shape)}"
    return f"{type(v).__name__} {v!r}"


class Region:
    """A branch or loop body being traced into its own graph (a context manager)."""

    def __init__(self, name: str, carried: list[Any] = (), params: list[Any] = ()) -> None:
        self.interp: TraceInterpreter = current()
        self.graph = Graph(name)
        interp = self.interp
        self.carried_inputs = [self.graph.add_input(t.shape, np.dtype(interp.value_of(t).dtype),
                                                    "carried", f"carried{i}")
                               for i, t in enumerate(carried)]
        self.params = list(params)
        self.param_inputs = [self.graph.add_input(p.shape, np.dtype(interp.value_of(p).dtype),
                                                  "carried", p.name or "param") for p in params]
        self.outputs: list[Value] = []

    def __enter__(self) -> Region:
        from ..common.tensor import Tensor

        interp = self.interp
        self.parent = interp.scope
        self.scope = Scope(self.graph, self.parent)
        self.saved = {key: param._data for key, (param, _) in interp.params.items()}
        interp.scope = self.scope
        for param, value in zip(self.params, self.param_inputs):
            param._set_traced(value)
        self._tape = _tape.recording(None)
        self._tape.__enter__()
        self.inputs = [Tensor._wrap(v) for v in self.carried_inputs]
        return self

    def finish(self, outputs: list[Any], carried: bool = True) -> None:
        """The region's results (Tensors, resolved inside the region), then (``carried``)
        the new values of the carried Parameters."""
        self.outputs = [self.interp.value_of(t) for t in outputs]
        if carried:
            self.outputs += [self.scope.updates.get(id(p), (p, v))[1]
                             for p, v in zip(self.params, self.param_inputs)]

    def __exit__(self, *exc: object) -> None:
        interp = self.interp
        self._tape.__exit__(*exc)
        interp.scope = self.parent
        for key, (param, root_value) in interp.params.items():
            param._set_traced(self.saved.get(key, root_value))
        self.graph.outputs = self.outputs

    @property
    def updated(self) -> list[Any]:
        """Parameters assigned inside the region (not counting the carried ones)."""
        carried = {id(p) for p in self.params}
        return [p for key, (p, _) in self.scope.updates.items() if key not in carried]


def _align_captures(regions: list[Region], n_fixed: int) -> list[Any]:
    """Give every region the same capture inputs, in one order; the outer tensors."""
    order: list[tuple[Any, Value]] = []  # (outer tensor, outer value), first capture wins
    seen: dict[int, int] = {}
    for region in regions:
        for outer_id, inner in region.scope.captures.items():
            if outer_id not in seen:
                tensor = next(t for t, i in region.scope.captured if i is inner)
                seen[outer_id] = len(order)
                order.append((tensor, inner))
    for region in regions:
        fixed = region.graph.inputs[:n_fixed]
        inputs = []
        for outer_id in seen:
            inner = region.scope.captures.get(outer_id)
            if inner is None:  # this region does not read it: an unused input
                shape_of = order[seen[outer_id]][1]
                inner = Value(shape_of.shape, shape_of.dtype, kind="capture", name="unused")
            inputs.append(inner)
        region.graph.inputs = fixed + inputs
    return [tensor for tensor, _ in order]


MISSING = object()  # a result that exists on neither path, or on one path only


def _merge(then: Any, other: Any, index: int, zero_fill: bool) -> tuple[Any, Any] | Any:
    """How one result position joins: a pair of Tensors (one per path), or the Python
    value both paths agree on, or MISSING."""
    from ..common.tensor import Tensor

    a_t, b_t = isinstance(then, Tensor), isinstance(other, Tensor)
    if a_t and b_t:
        a, b = then._data, other._data
        if np.dtype(a.dtype) != np.dtype(b.dtype) or joined_shape(a.shape, b.shape) is None:
            raise RegionMismatch(index, a, b, "if/else")
        return then, other
    if a_t or b_t:
        tensor, python = (then, other) if a_t else (other, then)
        if python is MISSING and not zero_fill:
            return MISSING
        if python is MISSING:
            python = 0
        if isinstance(python, bool | int | float | np.number):
            spec = tensor._data
            const = Tensor._wrap(np.full(spec.shape, python, dtype=np.dtype(spec.dtype)))
            return (then, const) if a_t else (const, other)
        raise RegionMismatch(index, then, other, "if/else")
    if then is MISSING or other is MISSING:
        return MISSING
    if same_python_value(then, other):
        return then
    if isinstance(then, NUMBERS) and isinstance(other, NUMBERS):  # e.g. a flag set on one path
        dtype = number_dtype(then, other)
        return Tensor(np.asarray(then, dtype)), Tensor(np.asarray(other, dtype))
    raise RegionMismatch(index, then, other, "if/else")


NUMBERS = (bool, int, float, np.bool_, np.number)


def joined_shape(a: tuple, b: tuple) -> tuple[int, ...] | None:
    """The shape two branch results of shapes ``a`` and ``b`` join to: the same shape, or,
    as MindSpore broadcasts a ``bool[]`` result against a ``bool[1]`` one, the larger of two
    shapes holding the same entries (``()`` and ``(1,)``, ``(3,)`` and ``(1, 3)``: only
    size-1 axes differ); None where they do not join."""
    a, b = tuple(a), tuple(b)
    if a == b:
        return a
    try:
        both = tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None
    same_count = math.prod(a) == math.prod(b)
    return both if same_count and both in (a, b) else None


def number_dtype(*values: Any) -> np.dtype:
    """bool, int64 or float32: the dtype Python numbers become as tensors (joined)."""
    if all(isinstance(v, bool | np.bool_) for v in values):
        return np.dtype(np.bool_)
    if all(isinstance(v, bool | int | np.bool_ | np.integer) for v in values):
        return np.dtype(np.int64)
    return np.dtype(np.float32)


def same_python_value(a: Any, b: Any) -> bool:
    """Whether two Python values are one (identical, or of one type and equal)."""
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def stage_if(cond: Any, then_fn: Callable[[], list], else_fn: Callable[[], list],
             zero_fill: Callable[[int], bool] = lambda i: False) -> list[Any]:
    """Trace both branches; join their results position by position: Tensors of equal
    spec become node outputs, a Python number facing a Tensor becomes a constant of its
    spec, equal Python values stay, a value missing on one path is MISSING (or zeros at
    positions where ``zero_fill(i)``, asked after both branches ran). Returns the joined
    results."""
    interp: TraceInterpreter = current()
    regions, raw = [], []
    for name, fn in (("then", then_fn), ("else", else_fn)):
        with Region(name) as region:
            raw.append(list(fn()))
        regions.append(region)
    then, other = regions
    if len(raw[0]) != len(raw[1]):
        raise RegionMismatch(-1, len(raw[0]), len(raw[1]), "if/else")
    joined = [_merge(a, b, i, zero_fill(i)) for i, (a, b) in enumerate(zip(*raw))]
    pairs = [j for j in joined if isinstance(j, tuple)]
    params: dict[int, Any] = {}
    for region in regions:
        for p in region.updated:
            params.setdefault(id(p), p)
    shapes = [joined_shape(a.shape, b.shape) for a, b in pairs]
    for k, region in enumerate(regions):  # a Parameter assigned on one path keeps its value
        with _reenter(region):
            region.finish([_reshaped(pair[k], shape) for pair, shape in zip(pairs, shapes)])
            region.outputs += [region.scope.updates[key][1] if key in region.scope.updates
                               else interp.value_of(p) for key, p in params.items()]
        region.graph.outputs = region.outputs
    outer = _align_captures(regions, 0)
    prim = If(then.graph, other.graph)
    values = (interp.value_of(cond), *[interp.value_of(t) for t in outer])
    result = interp.add_node(prim, (cond, *outer), values, prim.out_specs(*values))
    outs = list(result) if isinstance(result, tuple) else [result]
    for p, t in zip(params.values(), outs[len(pairs):]):
        interp.assign(p, t)
    staged = iter(outs[: len(pairs)])
    return [next(staged) if isinstance(j, tuple) else j for j in joined]


def _reshaped(tensor: Any, shape: tuple[int, ...]) -> Any:
    """A branch result given the joined shape (a reshape: only size-1 axes differ)."""
    if tuple(tensor.shape) == shape:
        return tensor
    from ..ops.shape_ops import reshape

    return reshape(tensor, shape)


class _reenter:
    """Trace a few more nodes into a region that was already traced."""

    def __init__(self, region: Region) -> None:
        self.region = region

    def __enter__(self) -> None:
        interp = self.region.interp
        self.parent, interp.scope = interp.scope, self.region.scope

    def __exit__(self, *exc: object) -> None:
        self.region.interp.scope = self.parent


def stage_while(cond_fn: Callable[[list], Any], body_fn: Callable[[list], list],
                init: list[Any]) -> tuple[list[Any], Any]:
    interp: TraceInterpreter = current()
    params: list[Any] = []
    while True:  # Parameters assigned in the body are loop-carried: find them, then retrace
        with Region("body", init, params) as body:
            outs = list(body_fn(list(body.inputs)))
            body.finish(outs)
        new = body.updated
        if not new:
            break
        params += new
    for i, (a, b) in enumerate(zip(body.carried_inputs + body.param_inputs, body.outputs)):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise RegionMismatch(i, a, b, "loop body")
    with Region("cond", init, params) as cond:
        flag = cond_fn(list(cond.inputs))
        cond.finish([flag], carried=False)
    if cond.updated:
        raise ValueError("a while condition may not assign Parameters")
    outer = _align_captures([cond, body], len(init) + len(params))
    prim = While(cond.graph, body.graph, len(init) + len(params))
    tensors = (*init, *params, *outer)
    values = tuple(interp.value_of(t) for t in tensors)
    result = list(interp.add_node(prim, tensors, values, prim.out_specs(*values)))
    carried, count = result[:-1], result[-1]
    for p, t in zip(params, carried[len(init):]):
        interp.assign(p, t)
    return carried[: len(init)], count
