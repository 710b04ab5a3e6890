"""The batching transform behind ``ops.vmap``: trace once per example, replay batched.

:func:`batch` takes ``fn``, its batched tensor arguments (each with its batch axis) and a
way to build ``fn``'s arguments from per-example stand-ins, and

1. **traces** ``fn`` once on per-example shapes into a private :class:`Graph` (the
   batched arguments become its inputs with the batch axis removed; every other tensor
   ``fn`` reads, an unbatched argument, a closure, a Parameter, a value of the enclosing
   trace, becomes a capture input standing for that very tensor). Inside an enclosing
   trace (``@jit``, a graph-mode ``construct``) ``fn`` is source-converted as graph mode
   converts it; in PyNative it runs as written, so anything that needs a tensor's value
   (``if t > 0`` on a tensor, ``float(t)``, ``asnumpy()``) stops the trace;
2. **plans**: which values carry the batch (every output of a node with a batched input)
   and, for each such node, its rule (:mod:`.batching_rules`, :mod:`.batching_index`);
   nodes nothing needs are dropped;
3. **replays** the graph in the current mode: batched arguments with their batch axis
   moved first, a node without batched inputs applied as it is, a batched one through its
   rule. In PyNative the NumPy kernels run and the tape records every application (so
   gradients flow through ``vmap``); while tracing the batched nodes go into the enclosing
   graph (and its tape), as many whatever the batch size. Range checks traced in ``fn``
   (indices, labels) are re-registered with an enclosing trace, over the whole batch.

It gives ``fn``'s result structure with each leaf a :class:`Leaf` (a tensor and whether
it carries the batch, first); :func:`place` puts a leaf on its ``out_axes``.

Refusals raise :class:`NotBatchable` (vmap then runs ``fn`` per example, see its
docstring): the trace failed (any exception: the per-example path reproduces a genuine
error), ``fn`` assigns a Parameter, calls a cell with forward hooks in PyNative, or
holds tensor control flow (``If``/``While``), a print, a host-drawn random primitive
(``Dropout``, ``Multinomial``), or a node with batched inputs and no rule for them.
``ENABLED = False`` forces the per-example path (benchmarks, debugging); ``OUTCOME`` says
what the latest vmap call did (``{"path": "batched" | "per-example", "reason": str}``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..interpreters import current, is_tracing, using
from ..interpreters.trace import Scope, TraceInterpreter
from ..ir.graph import Graph, Node, Value, ValueKind
from . import batching_index  # noqa: F401  (registers its rules)
from . import tape as _tape
from .batching_rules import Call, NotBatchable, rule_for

ENABLED = True
OUTCOME: dict[str, str] = {"path": "", "reason": ""}


@dataclass
class Leaf:
    """One leaf of ``fn``'s result: a Tensor (or a Python number) and whether it carries
    the batch (then along axis 0)."""

    value: Any
    batched: bool


class _Root(Scope):
    """The example graph's scope: any value it does not define becomes a capture input."""

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph)
        self.concrete: dict[int, Value] = {}  # id(tensor) -> its capture input

    def resolve(self, value: Value, tensor: Any) -> Value:
        if value.kind == ValueKind.CONST or value.id in self.defined:
            return value
        inner = self.captures.get(value.id)
        if inner is None:
            inner = self._capture(value.shape, value.dtype, tensor)
            self.captures[value.id] = inner
        return inner

    def capture_concrete(self, tensor: Any) -> Value:
        inner = self.concrete.get(id(tensor))
        if inner is None:
            data = tensor._data
            inner = self.concrete[id(tensor)] = self._capture(data.shape, data.dtype, tensor)
        return inner

    def _capture(self, shape: tuple, dtype: Any, tensor: Any) -> Value:
        inner = self.graph.add_input(shape, dtype, ValueKind.CAPTURE, "outer")
        self.defined.add(inner.id)
        self.captured.append((tensor, inner))
        return inner


class _ExampleTrace(TraceInterpreter):
    """A tracer whose graph reads every outer tensor through a capture (see :class:`_Root`)."""

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph)
        self.root = _Root(graph)
        self.scope = self.root

    def value_of(self, tensor: Any) -> Value:
        data = tensor._data
        if isinstance(data, Value):
            return self.scope.resolve(data, tensor)
        return self.scope.resolve(self.root.capture_concrete(tensor), tensor)

    def assign(self, param: Any, tensor: Any) -> None:
        raise NotBatchable(f"fn assigns the Parameter {getattr(param, 'name', '?')!r}")


def _map(out: Any, fn: Callable[[Any], Any]) -> Any:
    """``out`` with each leaf (not a tuple or list) replaced by ``fn(leaf)``."""
    if isinstance(out, tuple | list):
        items = [_map(o, fn) for o in out]
        if isinstance(out, tuple) and hasattr(out, "_fields"):
            return type(out)(*items)
        return type(out)(items)
    return fn(out)


def _trace(fn: Callable, leaves: list, build: Callable[[list], tuple]) -> tuple:
    """``fn`` traced on per-example stand-ins: (interpreter, example inputs, output)."""
    from ..common.tensor import Tensor

    graph = Graph("vmap_example")
    interp = _ExampleTrace(graph)
    inputs = []
    for tensor, axis in leaves:
        dims = tuple(tensor.shape)
        value = graph.add_input(dims[:axis] + dims[axis + 1:], tensor._data.dtype, ValueKind.INPUT,
                                "example")
        interp.root.defined.add(value.id)
        inputs.append(value)
    from .grad import HOOKS

    convert = HOOKS["convert"]
    call = convert(fn) if convert is not None and is_tracing() else fn
    with _tape.recording(None), using(interp):
        out = call(*build([Tensor._wrap(v) for v in inputs]))
    if not is_tracing() and any(c.__dict__.get("_forward_hooks") for c in interp.cells.values()):
        raise NotBatchable("fn calls a cell with forward hooks (they run per example)")
    return interp, inputs, out


def _output_values(out: Any) -> list[Value]:
    values: list[Value] = []

    def take(leaf: Any) -> Any:
        if hasattr(leaf, "_data") and isinstance(leaf._data, Value):
            values.append(leaf._data)
        return leaf

    _map(out, take)
    return values


def _live(graph: Graph, roots: list[Value]) -> list[Node]:
    """The nodes the ``roots`` depend on, in order."""
    needed = {v.id for v in roots}
    live = []
    for node in reversed(graph.nodes):
        if any(v.id in needed for v in node.outputs):
            live.append(node)
            needed.update(v.id for v in node.inputs)
    return live[::-1]


def _refuse_effects(graph: Graph) -> None:
    for node in graph.nodes:
        prim = node.prim
        if prim.side_effect or prim.host_random or prim.regions:
            kind = ("control flow on a tensor" if prim.regions else
                    "a print" if prim.side_effect else "a host-drawn random primitive")
            raise NotBatchable(f"fn holds {kind} ({prim.name})")


def _plan(nodes: list[Node], batched: set[int]) -> list[Any]:
    """Per node: its rule if it has a batched input (else None); ``batched`` grows with the
    ids of the values that carry the batch."""
    rules = []
    for node in nodes:
        flags = tuple(v.id in batched for v in node.inputs)
        if not any(flags):
            rules.append(None)
            continue
        rule = rule_for(node.prim)
        if rule is None:
            raise NotBatchable(f"no batching rule for {node.prim.name}")
        if rule.when is not None and not rule.when(flags):
            raise NotBatchable(f"no batching rule for {node.prim.name} with batched inputs "
                               f"{[i for i, f in enumerate(flags) if f]}")
        rules.append(rule)
        batched.update(v.id for v in node.outputs)
    return rules


def _to_front(tensor: Any, axis: int) -> Any:
    from ..ops.shape_ops import transpose

    if axis == 0:
        return tensor
    perm = (axis,) + tuple(i for i in range(len(tensor.shape)) if i != axis)
    return transpose(tensor, perm)


def _run_node(node: Node, rule: Any, env: dict[int, Any], batched: set[int], size: int) -> None:
    from ..common.tensor import Tensor
    from ..interpreters import apply

    args = [env[v.id] if v.kind != ValueKind.CONST else Tensor(v.data) for v in node.inputs]
    if rule is None:
        outs = apply(node.prim, tuple(args))
    else:
        flags = tuple(v.id in batched for v in node.inputs)
        outs = rule.fn(Call(node.prim, args, flags, node, size))
    outs = outs if isinstance(outs, tuple) else (outs,)
    for value, out in zip(node.outputs, outs):
        want = value.shape if rule is None else (size,) + value.shape
        got = (tuple(out._data.shape), np.dtype(out._data.dtype))
        if got != (want, value.dtype):
            raise AssertionError(f"vmap: the batching rule of {node.prim.name} gave {got}, "
                                 f"expected {(want, value.dtype)}")
        env[value.id] = out


def _recheck(interp: _ExampleTrace, env: dict[int, Any], batched: set[int]) -> None:
    """The example's range checks, over the whole batch, registered with the enclosing
    trace (PyNative's kernels check their inputs themselves)."""
    from ..ops.elementwise import neg
    from ..ops.range_check import RangeCheck
    from ..ops.reduce import reduce_max

    outer = current()
    if not is_tracing() or getattr(outer, "scope", None) is not getattr(outer, "root", None):
        return
    for check in interp.checks:
        over, under = env[check.over.id], env[check.under.id]
        if check.over.id in batched:
            over = reduce_max(over)
        if check.under.id in batched:
            under = neg(reduce_max(neg(under)))
        outer.checks.append(RangeCheck(outer.value_of(over), outer.value_of(under), check.low,
                                       check.high, check.describe, check.error))


def batch(fn: Callable, leaves: list, build: Callable[[list], tuple], size: int) -> Any:
    """``fn`` batched over ``leaves`` (``[(tensor, axis)]``); ``build(pieces)`` gives
    ``fn``'s arguments with the batched tensors replaced by ``pieces`` (in ``leaves``'
    order). Returns ``fn``'s result structure of :class:`Leaf` s; raises NotBatchable."""
    try:
        interp, inputs, out = _trace(fn, leaves, build)
    except NotBatchable:
        raise
    except Exception as error:  # noqa: BLE001  (the per-example path reproduces real errors)
        raise NotBatchable(f"tracing fn on one example failed ({type(error).__name__}: "
                           f"{error})") from error
    graph = interp.root.graph
    _refuse_effects(graph)
    checks = [v for c in interp.checks for v in (c.over, c.under)] if is_tracing() else []
    nodes = _live(graph, _output_values(out) + checks)
    batched = {v.id for v in inputs}
    rules = _plan(nodes, batched)
    env: dict[int, Any] = {v.id: _to_front(t, axis) for v, (t, axis) in zip(inputs, leaves)}
    env.update({inner.id: tensor for tensor, inner in interp.root.captured})
    for node, rule in zip(nodes, rules):
        _run_node(node, rule, env, batched, size)
    _recheck(interp, env, batched)

    def leaf(value: Any) -> Any:
        data = getattr(value, "_data", None)
        if isinstance(data, Value) and data.id in env:
            return Leaf(env[data.id], data.id in batched)
        return Leaf(value, False)

    return _map(out, leaf)


def place(leaf: Leaf, axis: int, size: int) -> Any:
    """A batched leaf with its batch axis at ``axis`` (normalized), an unbatched one
    broadcast there."""
    from ..common.tensor import Tensor
    from ..ops.shape_ops import broadcast_to, expand_dims, transpose

    value = leaf.value
    if not leaf.batched:
        value = value if isinstance(value, Tensor) else Tensor(value)
        dims = tuple(value.shape)
        return broadcast_to(expand_dims(value, axis), dims[:axis] + (size,) + dims[axis:])
    if axis == 0:
        return value
    perm = list(range(1, len(value.shape)))
    perm.insert(axis, 0)
    return transpose(value, tuple(perm))


def example_zero(leaf: Leaf, where: str) -> Any:
    """A leaf given ``out_axes`` None: unbatched as it is; a batched one only in PyNative
    when every example's value is the same (then the first example's)."""
    value = leaf.value
    if not leaf.batched:
        return value
    data = value._data
    if isinstance(data, np.ndarray):
        same = data.shape[0] == 0 or all(
            np.array_equal(data[i], data[0], equal_nan=data.dtype.kind == "f")
            for i in range(1, data.shape[0]))
        if same:
            return value[0]
    raise RuntimeError(f"vmap: output {where} has out_axes None but depends on the "
                       "batched inputs; give it an int axis")


__all__ = ["ENABLED", "Leaf", "NotBatchable", "OUTCOME", "batch", "example_zero", "place"]
