"""``ops.vjp``, ``ops.jvp``, ``ops.jacrev``, ``ops.jacfwd``, ``ops.linearize`` and
``ops.derivative`` (MindSpore's signatures).

All four are built on :class:`~.grad.Pullback` (a function run on a tape, ready for any
number of backward passes), so they compose with ``grad`` and with each other (a Hessian is
``jacfwd(jacrev(f))``) in both modes, as ``grad`` of ``grad`` does (see ``Tape.parent``):

- forward mode is the transpose of reverse mode (the "double vjp"): with output cotangents
  ``u`` watched by a tape of its own, one backward pass gives ``g(u) = J^T u``, recorded as a
  function of ``u``; a backward pass of that record from a tangent ``v`` gives
  ``d<g(u), v>/du = J v``. ``u`` is zero: ``g`` is linear in it, so its value is irrelevant.
  One forward and one backward pass serve every tangent (:class:`Linearized`);
- a Jacobian is one such product per basis vector: ``jacrev`` a backward pass per output
  element, ``jacfwd`` a tangent per input element; rows (columns) are stacked and shaped
  ``output.shape + input.shape``, as MindSpore's are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..context import GRAPH_MODE, get_context
from ..interpreters import is_tracing, phase
from ..ops.creation import ones_like, zeros_like
from ..ops.elementwise import cast
from ..ops.shape_ops import concat, expand_dims, reshape
from . import tape as _tape
from .backward import backprop
from .grad import Pullback, _as_tuple, _mode_aware, _positions, _weights_tuple


class Linearized:
    """The tangent map of ``fn`` at ``args`` (positions ``positions``): ``self(tangents)``
    gives the differentiated outputs' tangents (a list, one per output)."""

    def __init__(self, fn: Callable[..., Any], args: Sequence[Any], positions: Sequence[int],
                 has_aux: bool = False) -> None:
        self.tape = _tape.Tape(_tape.active())
        with _tape.recording(self.tape):
            self.pullback = Pullback(fn, args, positions, (), has_aux)
            self.cotangents = [zeros_like(t) for t in self.pullback.targets]
            for u in self.cotangents:
                self.tape.watch(u)
            self.grads, _ = self.pullback(tuple(self.cotangents))
        self.args, self.positions = args, positions

    def __call__(self, tangents: Sequence[Any]) -> list[Any]:
        if len(tangents) != len(self.positions):
            raise ValueError(f"jvp: {len(tangents)} tangents for {len(self.positions)} inputs")
        for p, v in zip(self.positions, tangents):
            x = self.args[p]
            if not isinstance(v, Tensor) or tuple(v.shape) != tuple(x.shape):
                got = tuple(v.shape) if isinstance(v, Tensor) else type(v).__name__
                raise ValueError(f"jvp: the tangent of input {p} must be a Tensor of its shape "
                                 f"{tuple(x.shape)}, got {got}")
        tape = self.tape
        with _tape.recording(tape.parent), phase("backward"):
            return backprop(tape.records, list(zip(self.grads, tangents)), self.cotangents,
                            tape.tracked, tape.saved)


def _basis(like: Any, k: int) -> Tensor:
    """The k-th unit tensor of ``like``'s shape and dtype (a constant)."""
    dtype = like._data.dtype
    unit = np.zeros(int(np.prod(like.shape, dtype=np.int64)), dtype)
    unit[k] = 1
    return Tensor(unit.reshape(tuple(like.shape)))


def _size(t: Any) -> int:
    return int(np.prod(t.shape, dtype=np.int64))


def _stack(parts: list[Any], axis: int) -> Any:
    return concat([expand_dims(p, axis) for p in parts], axis)


def _split_aux(output: Any, has_aux: bool) -> tuple[Any, Any]:
    """(the differentiated output(s), the auxiliary output or None)."""
    if not has_aux:
        return output, None
    outs = _as_tuple(output)
    if len(outs) < 2:
        raise ValueError("has_aux=True: the function must return (output, aux, ...)")
    return outs[0], outs[1] if len(outs) == 2 else tuple(outs[1:])


def _structure(value: Any, per_output: list[Any]) -> Any:
    """One entry per output as the function returned them: alone, or a tuple."""
    return tuple(per_output) if isinstance(value, tuple) else per_output[0]


def _jacobian(fn: Callable[..., Any], grad_position: Any, has_aux: bool, forward: bool) -> Any:
    positions, single = _positions(grad_position)
    if not positions:
        raise ValueError("jacobian: grad_position must name at least one input")

    def wrapper(*args: Any) -> Any:
        if forward:
            lin = Linearized(fn, args, positions, has_aux)
            targets, output = lin.pullback.targets, lin.pullback.output
            cols: list[list[list[Any]]] = [[[] for _ in positions] for _ in targets]
            for j, p in enumerate(positions):
                for k in range(_size(args[p])):
                    tangents = [_basis(args[q], k) if m == j else zeros_like(args[q])
                                for m, q in enumerate(positions)]
                    for i, column in enumerate(lin(tangents)):
                        cols[i][j].append(column)
            jac = [[reshape(_stack(cols[i][j], -1), tuple(t.shape) + tuple(args[p].shape))
                    for j, p in enumerate(positions)] for i, t in enumerate(targets)]
        else:
            pullback = Pullback(fn, args, positions, (), has_aux)
            targets, output = pullback.targets, pullback.output
            jac = []
            for i, t in enumerate(targets):
                rows: list[list[Any]] = [[] for _ in positions]
                for k in range(_size(t)):
                    sens = tuple(_basis(t, k) if m == i else zeros_like(o)
                                 for m, o in enumerate(targets))
                    for j, g in enumerate(pullback(sens)[0]):
                        rows[j].append(g)
                jac.append([reshape(_stack(rows[j], 0), tuple(t.shape) + tuple(args[p].shape))
                            for j, p in enumerate(positions)])
        per_output = [r[0] if single else tuple(r) for r in jac]
        main, aux = _split_aux(output, has_aux)
        result = _structure(main, per_output)
        return (result, aux) if has_aux else result

    name = "jacfwd" if forward else "jacrev"
    return _mode_aware(wrapper, f"{name}_{getattr(fn, '__name__', type(fn).__name__)}")


def jacrev(fn: Callable[..., Any], grad_position: Any = 0, has_aux: bool = False) -> Any:
    """``jacrev(fn, grad_position=0, has_aux=False)``: a function of fn's inputs giving the
    Jacobian of each output (``output.shape + input.shape``) by reverse mode; a tuple per
    output when fn returns several, per input when ``grad_position`` is a tuple; with
    ``has_aux``, ``(jacobian, aux)``."""
    return _jacobian(fn, grad_position, has_aux, forward=False)


def jacfwd(fn: Callable[..., Any], grad_position: Any = 0, has_aux: bool = False) -> Any:
    """``jacfwd(fn, grad_position=0, has_aux=False)``: :func:`jacrev`'s result by forward
    mode (a tangent per input element)."""
    return _jacobian(fn, grad_position, has_aux, forward=True)


# one compiled function per differentiated function in GRAPH_MODE (as grad's wrappers keep)
_COMPILED: WeakKeyDictionary = WeakKeyDictionary()


def _compiled(fn: Callable[..., Any], key: tuple, build: Callable[[], Callable[..., Any]]) -> Any:
    try:
        table = _COMPILED.setdefault(fn, {})
    except TypeError:  # not weakly referenceable: compile per call
        return build()
    if key not in table:
        table[key] = build()
    return table[key]


def _graph_top_level() -> bool:
    return get_context("mode") == GRAPH_MODE and not is_tracing() and _tape.active() is None


def _tensors(value: Any, what: str) -> tuple:
    values = _as_tuple(value) if not isinstance(value, list) else tuple(value)
    for v in values:
        if not isinstance(v, Tensor):
            raise TypeError(f"{what} must be a Tensor or a tuple of Tensors, got {type(v).__name__}")
    return values


def jvp(fn: Callable[..., Any], inputs: Any, v: Any, has_aux: bool = False) -> tuple:
    """``jvp(fn, inputs, v, has_aux=False)``: ``(fn(*inputs), J v)`` (forward mode), with
    ``inputs`` and the tangents ``v`` each a Tensor or a tuple of them; with ``has_aux`` fn
    returns ``(output, aux)`` and the result is ``(output, jvp, aux)``."""
    primals, tangents = _tensors(inputs, "jvp: inputs"), _tensors(v, "jvp: v")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(tangents)} tangents for {len(primals)} inputs")
    n = len(primals)

    def run(*values: Any) -> tuple:
        lin = Linearized(fn, values[:n], tuple(range(n)), has_aux)
        out_tangents = lin(values[n:])
        main, aux = _split_aux(lin.pullback.output, has_aux)
        result = (main, _structure(main, out_tangents))
        return result + (aux,) if has_aux else result

    if _graph_top_level():
        run = _compiled(fn, ("jvp", n, has_aux), lambda: _mode_aware(run, f"jvp_{_name(fn)}"))
    return run(*primals, *tangents)


def vjp(fn: Callable[..., Any], *inputs: Any, weights: Any = None, has_aux: bool = False) -> tuple:
    """``vjp(fn, *inputs, weights=None, has_aux=False)``: ``(fn(*inputs), vjp_fn)`` (with
    ``has_aux``: ``(output, vjp_fn, aux)``). ``vjp_fn(v)`` gives the inputs' gradients as a
    tuple for the output cotangent(s) ``v`` (``(inputs_grads, weights_grads)`` with
    ``weights``)."""
    params = _weights_tuple(weights)
    positions = tuple(range(len(inputs)))

    def pack(grads: tuple[list, list]) -> Any:
        pos, ws = grads
        return (tuple(pos), tuple(ws)) if weights is not None else tuple(pos)

    if _graph_top_level():  # compiled: the forward pass, and each vjp_fn call on its own
        def forward(*args: Any) -> Any:
            return fn(*args)

        def backward(*values: Any) -> Any:
            pullback = Pullback(fn, values[: len(inputs)], positions, params, has_aux)
            return pack(pullback(values[len(inputs):]))

        name = _name(fn)
        output = _compiled(fn, ("vjp_f",), lambda: _mode_aware(forward, f"vjp_forward_{name}"))(*inputs)
        back = _compiled(fn, ("vjp_b", len(inputs), has_aux, params),
                         lambda: _mode_aware(backward, f"vjp_{name}"))

        def vjp_fn(v: Any) -> Any:
            return back(*inputs, *_tensors(v, "vjp_fn: v"))
    else:
        pullback = Pullback(fn, inputs, positions, params, has_aux)
        output = pullback.output

        def vjp_fn(v: Any) -> Any:
            return pack(pullback(_tensors(v, "vjp_fn: v")))

    main, aux = _split_aux(output, has_aux)
    return (main, vjp_fn, aux) if has_aux else (main, vjp_fn)


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def linearize(fn: Callable[..., Any], inputs: Any) -> tuple:
    """``linearize(fn, inputs)``: ``(fn(*inputs), jvp_fn)`` where ``jvp_fn(v)`` is
    ``jvp(fn, inputs, v)``'s tangent, every call reusing one forward and one backward pass
    (in graph mode each ``jvp_fn`` call runs a compiled jvp)."""
    primals = _tensors(inputs, "linearize: inputs")
    if _graph_top_level():
        output = _compiled(fn, ("vjp_f",), lambda: _mode_aware(fn, f"linearize_{_name(fn)}"))(*primals)

        def jvp_fn(v: Any) -> Any:
            return jvp(fn, primals, v)[1]

        return output, jvp_fn
    lin = Linearized(fn, primals, tuple(range(len(primals))))
    output = lin.pullback.output

    def eager_jvp_fn(v: Any) -> Any:
        return _structure(output, lin(_tensors(v, "linearize: v")))

    return output, eager_jvp_fn


def derivative(fn: Callable[..., Any], primals: Any, order: int) -> tuple:
    """``derivative(fn, primals, order)``: ``(fn(*primals), d^order/de^order fn(primals + e))``
    at ``e = 0`` (every input moved by ``e``: the tangent is ones), by nested jvp; integer
    inputs are taken as float32 (as MindSpore does)."""
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(f"derivative: order must be an int >= 1, got {order!r}")
    values = tuple(v if mstype.kind(v._data.dtype) in "fc" else cast(v, np.float32)
                   for v in _tensors(primals, "derivative: primals"))

    def nth(k: int) -> Callable[..., Any]:
        if k == 0:
            return fn
        lower = nth(k - 1)
        return lambda *xs: jvp(lower, xs, tuple(ones_like(x) for x in xs))[1]

    def run(*xs: Any) -> tuple:
        return fn(*xs), nth(order)(*xs)

    if _graph_top_level():
        run = _compiled(fn, ("derivative", order, len(values)),
                        lambda: _mode_aware(run, f"derivative_{_name(fn)}"))
    return run(*values)
