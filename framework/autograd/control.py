"""Gradients of the structured control-flow nodes (``If``, ``While``).

Both differentiate their region graphs by *replaying* them: the region's nodes are
applied again, on a tape, inside a new region of the backward graph, and the tape is
swept backwards with the same bprop rules as everywhere else.

- ``If``: the backward is an ``If`` on the same condition whose branches are the
  vector-Jacobian products of the forward branches (each recomputes its branch's
  forward, so no residual crosses the branch boundary).
- ``While``: the forward node counts its iterations ``n``. The backward is one
  ``WhileGrad`` node holding the body and the body's VJP (traced once, as a region, with
  the next state as an input so that nodes needed only to recompute it drop out): it
  runs the body again from the loop's initial values saving each iteration's carried
  values (one row per iteration in buffers of ``n + 1`` rows), then applies the VJP for
  ``k = n-1 ... 0`` at rows ``k`` and ``k + 1``. Time: the forward loop twice plus the
  backward once; memory: the carried values of every iteration.

Importing this module registers both rules in :data:`framework.ir.control.BPROP_RULES`
(the IR's nodes look their bprop up there; ``import framework`` imports this module).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..ir.control import BPROP_RULES, ControlFlow, If, While, strip_side_effects
from ..ir.graph import Graph
from . import tape as _tape
from .backward import backprop
from .grad import _as_tuple


def _numeric(t: Any) -> bool:
    """Whether a region's value carries a cotangent: every number, integers included (as
    MindSpore differentiates them); bools (conditions, masks) carry none."""
    return mstype.kind(np.dtype(t._data.dtype)) in "fiu"


def replay(graph: Graph, inputs: list[Any]) -> list[Any]:
    """Apply ``graph``'s nodes again to ``inputs`` with the current interpreter (and tape).

    Prints are left out (a backward pass must not print twice); host-drawn random masks
    are reused, not drawn again; nested control-flow nodes are added as they are.
    """
    from ..common.tensor import Tensor
    from ..interpreters import current

    interp = current()
    env: dict[int, Any] = {v.id: t for v, t in zip(graph.inputs, inputs)}

    def get(v: Any) -> Any:
        return env[v.id] if v.id in env else Tensor._wrap(v.data)

    for node in graph.nodes:
        prim = node.prim
        if prim.side_effect and not node.outputs:
            continue
        args = [get(v) for v in node.inputs]
        if prim.host_random or isinstance(prim, ControlFlow):
            if isinstance(prim, ControlFlow) and prim.side_effect:
                prim = prim.without_side_effects()
            tensors = tuple(args[:-1]) if prim.host_random else tuple(args)
            values = tuple(interp.value_of(a) for a in args)
            specs = prim.out_specs(*values[: len(tensors)])
            result = interp.add_node(prim, tensors, values, specs)
        else:
            result = prim(*args)
        for value, tensor in zip(node.outputs, _as_tuple(result)):
            env[value.id] = tensor
    return [get(v) for v in graph.outputs]


def vjp_graph(graph: Graph, inputs: list[Any], douts: list[Any], wanted: list[int],
              known_outputs: list[Any] | None = None) -> list[Any]:
    """Cotangents of ``inputs[i]`` for ``i`` in ``wanted`` of ``graph`` at ``inputs``,
    given the cotangents ``douts`` of its outputs.

    ``known_outputs`` (the graph's output values, when the caller has them: a loop's next
    state) stand in for the replayed outputs in the bprops, so forward nodes needed only
    to recompute an output (a tanh whose bprop reads its output) become dead code.
    """
    watched = _distinct(inputs)
    tape = _tape.Tape()
    for i in wanted:
        tape.watch(watched[i])
    with _tape.recording(tape):
        outs = replay(graph, watched)
    if known_outputs is not None:
        outs = _substitute(tape, outs, known_outputs)
    roots = [(o, d) for o, d in zip(outs, douts) if _numeric(o)]
    with _tape.recording(None):
        return backprop(tape.records, roots, [watched[i] for i in wanted], tape.tracked)


def _distinct(inputs: list[Any]) -> list[Any]:
    """The inputs as the tape watches them: each object once (a repeated one gets a fresh
    identity, so positions are differentiated apart). The originals themselves, not copies:
    a region captures the first tensor object it sees for a value, and a tape of an outer
    transform (second order) must find the tensors it tracks among the node's inputs."""
    from ..common.tensor import Tensor
    from ..interpreters import current

    seen: set[int] = set()
    watched = []
    for t in inputs:
        if id(t) in seen:
            current().value_of(t)  # capture the original first (when t is from outside)
            watched.append(Tensor._wrap(t._data))
        else:
            seen.add(id(t))
            watched.append(t)
    return watched


def _substitute(tape: _tape.Tape, outs: list[Any], known: list[Any]) -> list[Any]:
    """Rewrite the tape so that ``known[i]`` is what produced (and what reads) ``outs[i]``."""
    # only outputs that a record computes: an output that is an input passed through (a
    # backward loop's cotangent of a sum) must keep the input's identity, or the records
    # reading that input would read the next state's tensor and its gradient would be lost
    produced = {id(r) for _, _, result in tape.records for r in _as_tuple(result)}
    swap = {id(o): k for o, k in zip(outs, known) if o is not k and id(o) in produced}
    if not swap:
        return outs

    def sub(t: Any) -> Any:
        return swap.get(id(t), t)

    records = []
    for prim, inputs, result in tape.records:
        result = tuple(sub(r) for r in result) if isinstance(result, tuple) else sub(result)
        records.append((prim, tuple(sub(t) for t in inputs), result))
    tape.records[:] = records
    tape.tracked.update(id(k) for o, k in zip(outs, known) if id(o) in tape.tracked)
    tape._watched.extend(known)
    return [sub(o) for o in outs]


def _cotangents(out: Any, dout: Any) -> list[Any]:
    from ..ops.creation import zeros_like

    return [zeros_like(o) if d is None else d for o, d in zip(_as_tuple(out), _as_tuple(dout))]


def if_bprop(prim: Any, inputs: tuple, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
    from ..interpreters.regions import stage_if

    cond, operands = inputs[0], list(inputs[1:])
    douts = _cotangents(out, dout)
    wanted = [i for i, t in enumerate(operands) if needs[i + 1] and _numeric(t)]
    if not wanted:
        return (None,) * len(inputs)

    def branch(graph: Graph):
        return lambda: vjp_graph(graph, operands, douts, wanted)

    grads = stage_if(cond, branch(prim.then_graph), branch(prim.else_graph))
    result: list[Any] = [None] * len(inputs)
    for i, g in zip(wanted, grads):
        result[i + 1] = g
    return tuple(result)


def while_bprop(prim: Any, inputs: tuple, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
    """A ``WhileGrad`` node: the body's VJP traced once as a region, applied backwards over
    the saved iterations (see framework.ir.control and backend/tvm/lower/loops.py). Where a
    higher-order transform records this backward pass, :func:`recomputing_while_bprop`."""
    from ..interpreters import current
    from ..interpreters.regions import Region
    from ..ir.control import WhileGrad
    from ..ops.creation import zeros_like

    if _tape.RECORDED_SWEEP.get():
        return recomputing_while_bprop(prim, inputs, out, dout, needs)
    n, init, invariants, outs, douts, num_carried, num_inv = _while_operands(prim, inputs, out, dout, needs)
    if not num_carried and not num_inv:
        return (None,) * len(inputs)
    cotangents = [douts[i] for i in num_carried]
    m, n_g = len(invariants), len(num_carried)
    sums = [invariants[j] for j in num_inv]  # stand-ins of the right specs for the sums
    with Region("vjp", init + invariants + init + cotangents + sums) as region:
        ins = region.inputs
        state, inv, nxt = ins[:n], ins[n:n + m], ins[n + m:2 * n + m]
        g, acc = ins[2 * n + m:2 * n + m + n_g], ins[2 * n + m + n_g:]
        cot = [zeros_like(t) for t in state]
        for i, gi in zip(num_carried, g):
            cot[i] = gi
        wanted = num_carried + [n + j for j in num_inv]
        grads = vjp_graph(prim.body_graph, state + inv, cot, wanted, nxt)
        summed = [a if d is None else a + d for a, d in zip(acc, grads[n_g:])]
        region.finish(grads[:n_g] + summed, carried=False)
    if region.scope.captured:
        raise RuntimeError("internal: the backward of a while loop read values from outside it")
    node = WhileGrad(strip_side_effects(prim.body_graph), region.graph, n, m, n_g, prim.uid)
    interp = current()
    tensors = (*init, *invariants, outs[-1], *cotangents)
    values = tuple(interp.value_of(t) for t in tensors)
    grads = _as_tuple(interp.add_node(node, tensors, values, node.out_specs(*values)))
    result: list[Any] = [None] * len(inputs)
    for i, g_i in zip(num_carried, grads[: len(num_carried)]):
        result[i] = g_i if needs[i] else None
    for j, g_j in zip(num_inv, grads[len(num_carried):]):
        result[n + j] = g_j
    return tuple(result)


def _while_operands(prim: Any, inputs: tuple, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
    """A ``While`` record's parts for its backward: the carried count, initial values,
    invariants, outputs, cotangents (zeros where none), and the numeric carried values and
    the wanted numeric invariants (by index)."""
    n = prim.n_carried
    init, invariants = list(inputs[:n]), list(inputs[n:])
    num_carried = [i for i in range(n) if _numeric(init[i])]
    num_inv = [j for j, t in enumerate(invariants) if needs[n + j] and _numeric(t)]
    return n, init, invariants, _as_tuple(out), _cotangents(out, dout), num_carried, num_inv


def recomputing_while_bprop(prim: Any, inputs: tuple, out: Any, dout: Any,
                            needs: tuple[bool, ...]) -> tuple:
    """The backward of a ``While`` as plain ``While`` nodes, so that it is differentiable
    again (``WhileGrad`` is not): a loop over ``k = n-1 ... 0`` whose body recomputes the
    k-th state with an inner loop from the initial values, then applies the body's VJP
    there. Time: O(n^2) body evaluations, memory: one state (used at second order only)."""
    from ..interpreters.regions import stage_while
    from ..ops.creation import zeros_like

    n, init, invariants, outs, douts, num_carried, num_inv = _while_operands(prim, inputs, out, dout, needs)
    if not num_carried and not num_inv:
        return (None,) * len(inputs)
    n_g = len(num_carried)
    count = outs[-1]

    def state_at(k: Any) -> list[Any]:
        def more(vals: list) -> Any:
            return vals[0] < k

        def step(vals: list) -> list:
            return [vals[0] + 1, *replay(prim.body_graph, list(vals[1:]) + invariants)]

        finals, _ = stage_while(more, step, [zeros_like(count), *init])
        return finals[1:]

    def going(vals: list) -> Any:
        return vals[0] >= 0

    def back(vals: list) -> list:
        k, g, acc = vals[0], vals[1:1 + n_g], vals[1 + n_g:]
        state = state_at(k)
        cot = [zeros_like(t) for t in state]
        for i, gi in zip(num_carried, g):
            cot[i] = gi
        grads = vjp_graph(prim.body_graph, state + invariants, cot,
                          num_carried + [n + j for j in num_inv])
        return [k - 1, *grads[:n_g], *[a + d for a, d in zip(acc, grads[n_g:])]]

    start = [count - 1, *[douts[i] for i in num_carried], *[zeros_like(invariants[j]) for j in num_inv]]
    finals, _ = stage_while(going, back, start)
    result: list[Any] = [None] * len(inputs)
    for i, g_i in zip(num_carried, finals[1:1 + n_g]):
        result[i] = g_i if needs[i] else None
    for j, g_j in zip(num_inv, finals[1 + n_g:]):
        result[n + j] = g_j
    return tuple(result)


BPROP_RULES[If] = if_bprop
BPROP_RULES[While] = while_bprop
