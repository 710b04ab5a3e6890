"""Structured control flow in the IR: ``If`` and ``While`` nodes holding region graphs.

A region is a closed ``Graph``: everything it reads is one of its own inputs (the
tracer turns each outer value a branch or loop body reads into an input, a *capture*),
so a region can be printed, verified, optimized and lowered on its own.

``WhileGrad(body_graph, vjp_graph, n_carried, n_invariants, n_cotangents)`` — the
backward of a ``While``: node inputs ``(*carried_init, *invariants, trip_count,
*cotangents)`` (one cotangent per float carried value); ``vjp_graph(*state,
*invariants, *next_state, *cotangents, *sums) -> (*state_cotangents, *sums')`` is the
body's vector-Jacobian product at ``state`` (``next_state`` is the body's result there),
where ``sums`` are the invariants' cotangents summed over the iterations after this one
and ``sums'`` adds this iteration's (so the sum fuses into the kernels that produce it);
outputs are the cotangents of the float carried inits and the invariants' sums from
zeros. Lowered with a buffer of saved states (backend/tvm/lower/loop_grad.py).

``If(then_graph, else_graph)`` — node inputs ``(cond, *operands)``; both branch graphs
take ``operands`` (same specs, same order) and return the node's outputs (same specs).
``cond`` is a bool tensor with one element.

``While(cond_graph, body_graph, n_carried)`` — node inputs ``(*carried, *invariants)``;
``cond_graph(*carried, *invariants) -> (bool[],)`` and ``body_graph(*carried,
*invariants) -> (*carried',)``; node outputs ``(*carried_final, trip_count)`` with
``trip_count`` an int64 scalar (how many times the body ran; the backward pass uses it).

Both are primitives so that every pass, the tape and the lowering see one node; they
are not in the primitive registry (their shape rule is the regions' outputs). Their
NumPy kernels evaluate the regions (used by constant folding and the eager reference).
Their bprops live a layer up, in :mod:`framework.autograd.control`, which registers them in
:data:`BPROP_RULES` when it is imported (``import framework`` does): the IR never imports
autograd.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..primitive import Primitive, Spec
from .graph import Graph, Node, Value

# If/While -> bprop(prim, inputs, out, dout, needs), filled in by framework.autograd.control
BPROP_RULES: dict[type, Callable[..., tuple]] = {}


def _bprop_rule(prim: Primitive) -> Callable[..., tuple]:
    rule = BPROP_RULES.get(type(prim))
    if rule is None:
        raise RuntimeError(f"{type(prim).__name__}: no bprop registered (framework.autograd.control "
                           "registers it; import framework)")
    return rule

_uid = itertools.count()


def _specs(values: list[Value]) -> tuple[Spec, ...]:
    return tuple(Spec(v.shape, v.dtype) for v in values)


class ControlFlow(Primitive, abstract=True):
    """Base of the structured nodes: unique identity (never merged by CSE)."""

    def __init__(self, regions: tuple[Graph, ...]) -> None:
        super().__init__()
        self.regions = regions
        self.uid = next(_uid)
        self.side_effect = any(has_side_effects(n) for g in regions for n in g.nodes)

    def key(self) -> tuple:
        return (type(self), self.uid)

    def out_specs(self, *inputs: Any) -> tuple[Spec, ...]:
        return tuple(self.infer(*inputs))

    def with_regions(self, regions: tuple[Graph, ...]) -> ControlFlow:
        """The same node kind over other region graphs (same interfaces)."""
        raise NotImplementedError

    def without_side_effects(self) -> ControlFlow:
        """A copy whose regions leave out prints (for replays in backward passes)."""
        return self.with_regions(tuple(strip_side_effects(g) for g in self.regions))


class If(ControlFlow, abstract=True):
    region_labels = ("then", "else")

    def __init__(self, then_graph: Graph, else_graph: Graph) -> None:
        super().__init__((then_graph, else_graph))
        self.then_graph, self.else_graph = then_graph, else_graph
        self.num_outputs = len(then_graph.outputs)

    def with_regions(self, regions: tuple[Graph, ...]) -> If:
        return If(*regions)

    def infer(self, cond: Any, *operands: Any) -> tuple[Spec, ...]:
        if int(np.prod(cond.shape, dtype=np.int64)) != 1:
            raise ValueError(f"the condition of an if must have one element, got shape {cond.shape}")
        for graph in self.regions:
            if _specs(graph.inputs) != tuple(Spec(tuple(o.shape), np.dtype(o.dtype)) for o in operands):
                raise ValueError(f"If: branch {graph.name} takes {_specs(graph.inputs)}")
        return _specs(self.then_graph.outputs)

    def kernel(self, cond: np.ndarray, *operands: np.ndarray) -> tuple[np.ndarray, ...]:
        graph = self.then_graph if bool(np.asarray(cond).reshape(())) else self.else_graph
        return tuple(evaluate(graph, list(operands)))

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        return _bprop_rule(self)(self, inputs, out, dout, needs)


class While(ControlFlow, abstract=True):
    region_labels = ("cond", "body")

    def __init__(self, cond_graph: Graph, body_graph: Graph, n_carried: int) -> None:
        super().__init__((cond_graph, body_graph))
        self.cond_graph, self.body_graph, self.n_carried = cond_graph, body_graph, n_carried
        self.num_outputs = n_carried + 1

    def with_regions(self, regions: tuple[Graph, ...]) -> While:
        return While(*regions, self.n_carried)

    def infer(self, *inputs: Any) -> tuple[Spec, ...]:
        carried = _specs(self.body_graph.inputs[: self.n_carried])
        return carried + (Spec((), np.dtype(np.int64)),)

    def kernel(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        carried, invariants = list(arrays[: self.n_carried]), list(arrays[self.n_carried:])
        count = 0
        while bool(np.asarray(evaluate(self.cond_graph, carried + invariants)[0]).reshape(())):
            carried = evaluate(self.body_graph, carried + invariants)
            count += 1
        return tuple(carried) + (np.array(count, np.int64),)

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        return _bprop_rule(self)(self, inputs, out, dout, needs)


class WhileGrad(ControlFlow, abstract=True):
    region_labels = ("body", "vjp")
    differentiable = False
    first_order_only = True
    # a backward sweep that a tape records uses recomputing_while_bprop (autograd.control)
    first_order_reason = "the first-order backward of a graph-mode while loop"

    def __init__(self, body_graph: Graph, vjp_graph: Graph, n_carried: int, n_invariants: int,
                 n_cotangents: int, forward_uid: int | None = None) -> None:
        super().__init__((body_graph, vjp_graph))
        self.forward_uid = forward_uid  # the While it differentiates (its saved states)
        self.body_graph, self.vjp_graph = body_graph, vjp_graph
        self.n_carried, self.n_invariants = n_carried, n_invariants
        self.n_cotangents = n_cotangents
        self.num_outputs = len(vjp_graph.outputs)

    def with_regions(self, regions: tuple[Graph, ...]) -> WhileGrad:
        return WhileGrad(*regions, self.n_carried, self.n_invariants, self.n_cotangents,
                         self.forward_uid)

    def infer(self, *inputs: Any) -> tuple[Spec, ...]:
        return _specs(self.vjp_graph.outputs)

    def kernel(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        n, m = self.n_carried, self.n_invariants
        state, inv = list(arrays[:n]), list(arrays[n:n + m])
        count, g = int(arrays[n + m]), list(arrays[n + m + 1:])
        saved = [state]
        for _ in range(count):
            saved.append(evaluate(self.body_graph, saved[-1] + inv))
        n_g = len(g)
        sums = [np.zeros(v.shape, v.dtype) for v in self.vjp_graph.outputs[n_g:]]
        for k in reversed(range(count)):
            out = evaluate(self.vjp_graph, saved[k] + inv + saved[k + 1] + g + sums)
            g, sums = out[:n_g], out[n_g:]
        return tuple(g) + tuple(sums)


def has_side_effects(node: Node) -> bool:
    """Whether a node must run even when nothing reads its outputs (prints, or a region
    holding one)."""
    return node.prim.side_effect


def strip_side_effects(graph: Graph) -> Graph:
    """A copy of ``graph`` without print nodes (regions recurse; values are shared)."""
    copy = Graph(graph.name, list(graph.inputs), [], list(graph.outputs))
    for node in graph.nodes:
        if has_side_effects(node):
            if not node.outputs:
                continue
            node = Node(node.prim.without_side_effects(), node.inputs, node.outputs,
                        node.location, node.phase)
        copy.nodes.append(node)
    return copy


def evaluate(graph: Graph, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run ``graph`` on NumPy arrays with each primitive's kernel (regions recurse)."""
    env: dict[int, np.ndarray] = {v.id: np.asarray(a) for v, a in zip(graph.inputs, inputs)}

    def get(v: Value) -> np.ndarray:
        return v.data if v.kind == "const" else env[v.id]

    for node in graph.nodes:
        results = node.prim.kernel(*[get(v) for v in node.inputs])
        results = results if isinstance(results, tuple) else (results,)
        for value, data in zip(node.outputs, results):
            env[value.id] = np.asarray(data).astype(value.dtype, copy=False)
    return [get(v) for v in graph.outputs]
