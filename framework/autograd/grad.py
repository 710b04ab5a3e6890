"""Gradient transforms: ``ms.grad``, ``ms.value_and_grad`` and ``ops.GradOperation``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import tape as _tape
from .backward import backprop
from .hooks import share_tensor_hooks

HOOKS = _tape.HOOKS  # the jit layer's conversions (defined in tape, see there)


def _as_tuple(value: Any) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _weights_tuple(weights: Any) -> tuple:
    from ..parameter import Parameter

    if weights is None:
        return ()
    if isinstance(weights, Parameter):
        return (weights,)
    weights = tuple(weights)
    for w in weights:
        if not isinstance(w, Parameter):
            raise TypeError(f"weights must be Parameters, got {type(w).__name__}")
    return weights


class Pullback:
    """``fn(*args)`` run on a tape, ready for any number of backward passes (``self(sens)``).

    With ``has_aux`` only the first output is differentiated (``targets``). Inside another
    transform (an active tape: ``grad`` of ``grad``, jvp, jacobians) the tape's parent is that
    transform's, and each backward pass is recorded there: the gradients it returns are then
    functions of whatever the outer transform differentiates.
    """

    def __init__(self, fn: Callable[..., Any], args: Sequence[Any], positions: Sequence[int],
                 weights: Sequence[Any], has_aux: bool = False) -> None:
        from ..common.tensor import Tensor
        from ..interpreters import current, is_tracing
        from ..ir.graph import Value
        from ..ops.shape_ops import load
        from ..ops.state import collecting_writes
        from ..parameter import Parameter

        self.outer = _tape.active()
        tape = self.tape = _tape.Tape(self.outer)
        inputs = list(args)
        for p in positions:
            if not -len(args) <= p < len(args):
                raise ValueError(f"grad_position {p} is out of range for {len(args)} inputs")
            if not isinstance(args[p], Tensor):
                raise TypeError(
                    f"grad_position {p}: input is a {type(args[p]).__name__}; only Tensors can "
                    "be differentiated"
                )
            # a fresh identity per input; a Parameter passed as an input while tracing: its
            # traced value (its host array would be a constant of the graph)
            data = current().value_of(args[p]) if is_tracing() and isinstance(args[p], Parameter) else None
            if is_tracing() and data is None and not isinstance(args[p]._data, Value):
                # a constant of the graph (a closure's tensor): a node's value instead, which a
                # loop or branch body captures as an operand (a constant there would be
                # rebuilt, not the watched tensor, and its gradient lost)
                data = current().value_of(load(args[p]))
            inputs[p] = _tape.fresh_identity(args[p], self.outer, data)
            share_tensor_hooks(args[p], inputs[p])  # Tensor.register_hook on the caller's tensor
            tape.watch(inputs[p])
        for w in weights:
            tape.watch(w)
        convert = HOOKS["convert"]
        with _tape.recording(tape), collecting_writes() as written:
            self.output = (convert(fn) if convert is not None and is_tracing() else fn)(*inputs)
        _write_back(args, inputs, positions, written)
        self.targets = _as_tuple(self.output)[:1] if has_aux else _as_tuple(self.output)
        for t in self.targets:
            if not isinstance(t, Tensor):
                raise TypeError("the differentiated function must return Tensors, got "
                                f"{type(t).__name__}")
        self.watched = [tape.resolve(inputs[p]) for p in positions] + list(weights)
        self.n_positions = len(positions)

    def __call__(self, sens: Any = None) -> tuple[list[Any], list[Any]]:
        """Gradients (of the positions, of the weights) for output cotangents ``sens`` (ones
        for each differentiated output when None)."""
        from ..interpreters import phase
        from ..ops.creation import ones_like

        targets = self.targets
        sens_values = _as_tuple(sens) if sens is not None else tuple(ones_like(t) for t in targets)
        if len(sens_values) != len(targets):
            raise ValueError(f"sens has {len(sens_values)} entries for {len(targets)} outputs")
        tape = self.tape
        with _tape.recording(self.outer), phase("backward"):
            grads = backprop(tape.records, list(zip(targets, sens_values)), self.watched,
                             tape.tracked, tape.saved)
        return grads[: self.n_positions], grads[self.n_positions:]


def vjp(
    fn: Callable[..., Any],
    args: Sequence[Any],
    positions: Sequence[int],
    weights: Sequence[Any],
    has_aux: bool = False,
    sens: Any = None,
) -> tuple[Any, list[Any], list[Any]]:
    """Run ``fn(*args)`` on a tape; return (output, grads of positions, grads of weights).

    With ``has_aux`` only the first output is differentiated. ``sens`` defaults to
    ones for each differentiated output.
    """
    pullback = Pullback(fn, args, positions, weights, has_aux)
    pos_grads, weight_grads = pullback(sens)
    return pullback.output, pos_grads, weight_grads


def _write_back(args: Sequence[Any], inputs: list[Any], positions: Sequence[int],
                written: list[Any]) -> None:
    """A differentiated input (a fresh identity) updated in place: the caller's tensor takes
    its value, as a compiled function's argument does (:mod:`framework.graph_mode`)."""
    from ..common.tensor import Tensor
    from ..ops.state import assign

    for p in positions:
        if any(t is inputs[p] for t in written):
            assign(args[p], Tensor._wrap(inputs[p]._data))


def _positions(grad_position: Any) -> tuple[tuple[int, ...], bool]:
    if grad_position is None:
        return (), False
    if isinstance(grad_position, int):
        return (grad_position,), True
    positions = tuple(grad_position)
    return positions, len(positions) == 1  # MindSpore: a 1-tuple gives its gradient, not a tuple


def _mode_aware(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    mode_aware = HOOKS["mode_aware"]
    return fn if mode_aware is None else mode_aware(fn, name)


def _pack(pos_grads: list, weight_grads: list, grad_position: Any, weights: Any,
          return_ids: bool = False) -> Any:
    positions, single = _positions(grad_position)
    if return_ids:  # MindSpore's return_ids: (position, grad) and (parameter name, grad) pairs
        pos_grads = [(p, g) for p, g in zip(positions, pos_grads)]
        weight_grads = [(w.name, g) for w, g in zip(_weights_tuple(weights), weight_grads)]
    pos = pos_grads[0] if single else tuple(pos_grads)
    if weights is None:
        return pos
    if grad_position is None:
        return tuple(weight_grads)
    return pos, tuple(weight_grads)


def value_and_grad(fn: Callable[..., Any], grad_position: Any = 0, weights: Any = None,
                   has_aux: bool = False, return_ids: bool = False) -> Callable[..., Any]:
    """``value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False)``.

    Returns ``f(*args) -> (value, grads)``: grads of the inputs at ``grad_position``
    (an int, a tuple, or None), of ``weights``, or ``(inputs_grads, weights_grads)``;
    with ``return_ids`` each gradient is paired with its position or parameter name.
    """
    positions, _ = _positions(grad_position)
    if grad_position is None and weights is None:
        raise ValueError("value_and_grad: grad_position and weights cannot both be None")

    def wrapper(*args: Any) -> Any:
        out, pos_grads, weight_grads = vjp(fn, args, positions, _weights_tuple(weights), has_aux)
        return out, _pack(pos_grads, weight_grads, grad_position, weights, return_ids)

    return _mode_aware(wrapper, f"value_and_grad_{getattr(fn, '__name__', type(fn).__name__)}")


def grad(fn: Callable[..., Any], grad_position: Any = 0, weights: Any = None,
         has_aux: bool = False, return_ids: bool = False) -> Callable[..., Any]:
    """``grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False)``: like
    value_and_grad without the value (with ``has_aux``: ``(grads, aux)``)."""
    inner = value_and_grad(fn, grad_position, weights, has_aux, return_ids)

    def wrapper(*args: Any) -> Any:
        out, grads = inner(*args)
        if has_aux:
            return grads, _as_tuple(out)[1:]
        return grads

    return wrapper


class GradOperation:
    """``GradOperation(get_all=False, get_by_list=False, sens_param=False)``.

    ``GradOperation()(fn, weights)`` returns a function of fn's inputs (plus a
    trailing ``sens`` with ``sens_param``) giving: the first input's gradient; all
    inputs' gradients (``get_all``); the weights' (``get_by_list``); or both as
    ``(inputs_grads, weights_grads)``.
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False) -> None:
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn: Callable[..., Any], weights: Any = None) -> Callable[..., Any]:
        if self.get_by_list and weights is None:
            raise ValueError("GradOperation(get_by_list=True) needs weights: grad_op(fn, weights)")
        params = _weights_tuple(weights) if self.get_by_list else ()

        def wrapper(*args: Any) -> Any:
            sens = None
            if self.sens_param:
                if not args:
                    raise ValueError("GradOperation(sens_param=True): pass sens as the last input")
                args, sens = args[:-1], args[-1]
            if self.get_all:
                positions = tuple(range(len(args)))
            else:
                positions = () if self.get_by_list else (0,)
            _, pos_grads, weight_grads = vjp(fn, args, positions, params, sens=sens)
            if self.get_all and self.get_by_list:
                return tuple(pos_grads), tuple(weight_grads)
            if self.get_by_list:
                return tuple(weight_grads)
            if self.get_all:
                return tuple(pos_grads)
            return pos_grads[0]

        return _mode_aware(wrapper, f"grad_{getattr(fn, '__name__', type(fn).__name__)}")
