"""Reverse-mode sweep shared by both modes.

``records`` are ``(primitive, inputs, outputs)`` triples in execution order: the eager
tape in PyNative, the traced graph's nodes in graph mode. Each primitive's ``bprop``
(written with framework ops) maps output cotangents to input cotangents; each input's
cotangent is then cast to that input's dtype, so integer inputs get integer gradients, as
in MindSpore (see ``_in_dtype``). A tensor with hooks (``Tensor.register_hook``,
:mod:`.hooks`) has them run on its complete cotangent when the sweep reaches it (a
``wrt`` tensor: at the end).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..interpreters import current, located_like
from ..ops import elementwise as F  # the gradient stores add with F.add
from ..ops.creation import zeros_like
from ..ops.elementwise import cast
from . import tape as _tape
from .accumulate import EagerGradStore, GradStore
from .hooks import TENSOR_HOOKS, run_tensor_hooks


def backprop(
    records: Sequence[tuple[Any, tuple, Any]],
    roots: Sequence[tuple[Any, Any]],
    wrt: Sequence[Any],
    tracked: set[int],
    saved: Mapping[int, Any] | None = None,
) -> list[Any]:
    """See :func:`_sweep`; a sweep that a tape records (a higher-order transform) marks
    itself and every sweep it runs inside regions (which pause the tape) as recorded."""
    if _tape.active() is None or _tape.RECORDED_SWEEP.get():
        return _sweep(records, roots, wrt, tracked, saved)
    token = _tape.RECORDED_SWEEP.set(True)
    try:
        return _sweep(records, roots, wrt, tracked, saved)
    finally:
        _tape.RECORDED_SWEEP.reset(token)


def _sweep(
    records: Sequence[tuple[Any, tuple, Any]],
    roots: Sequence[tuple[Any, Any]],
    wrt: Sequence[Any],
    tracked: set[int],
    saved: Mapping[int, Any] | None = None,
) -> list[Any]:
    """Cotangents of ``wrt`` given ``(output, sensitivity)`` roots; zeros where unused.

    ``saved``: by record index, the tensors that record's bprop reads as packed by
    saved-tensor hooks (:mod:`.saved_tensors`); they are unpacked for its bprop.

    ``tracked`` holds the ids of tensors that depend on ``wrt``; a bprop is told which
    of its inputs need a gradient (``needs``) so it can skip the others.
    """
    # only a tracing interpreter credits backward nodes to a source line: skip the context
    # manager (a generator per record) in PyNative
    interp = current()
    locate = hasattr(interp, "location_override")
    # a tape recording this sweep (a higher-order transform) needs every sum as its own
    # tensor: no in-place accumulation then
    store = GradStore(F) if interp.tracing or _tape.active() is not None else EagerGradStore(F)
    grads = store.grads

    for output, sens in roots:
        store.add(output, sens)

    for index in range(len(records) - 1, -1, -1):
        prim, inputs, result = records[index]
        dout = _pop_dout(store, prim, result, F)
        if dout is None:
            continue
        needs = tuple([id(t) in tracked for t in inputs])
        if store.add_slice(prim, inputs, dout, needs):
            continue
        args, out = saved[index].restore(inputs, result) if saved and index in saved else (inputs, result)
        if locate:
            with located_like(result):  # graph mode: backward nodes point at the forward line
                in_grads = prim.bprop(*args, out=out, dout=dout, needs=needs)
                _accumulate_inputs(prim, inputs, in_grads, tracked, store.add)
        else:
            in_grads = prim.bprop(*args, out=out, dout=dout, needs=needs)
            _accumulate_inputs(prim, inputs, in_grads, tracked, store.add)

    if TENSOR_HOOKS:
        return [run_tensor_hooks(t, grads[id(t)]) if id(t) in grads else zeros_like(t) for t in wrt]
    return [grads.get(id(t)) if id(t) in grads else zeros_like(t) for t in wrt]


def _pop_dout(store: Any, prim: Any, result: Any, F: Any) -> Any:
    """The cotangent of a record's output(s), taken from the store (after the outputs'
    tensor hooks); None where no output got one. A tuple for several outputs, with zeros
    (or None, for ``prim.none_douts``) where one got none."""
    if not isinstance(result, tuple):
        dout = store.pop(result)
        return run_tensor_hooks(result, dout) if TENSOR_HOOKS and dout is not None else dout
    douts = [store.pop(o) for o in result]
    if all(d is None for d in douts):
        return None
    if TENSOR_HOOKS:
        douts = [run_tensor_hooks(o, d) for o, d in zip(result, douts)]
    return tuple(d if d is not None or prim.none_douts else zeros_like(o)
                 for o, d in zip(result, douts))


def _accumulate_inputs(prim: Any, inputs: tuple, in_grads: tuple, tracked: set[int],
                       accumulate: Any) -> None:
    if len(in_grads) != len(inputs):
        raise RuntimeError(
            f"{prim.name}.bprop returned {len(in_grads)} gradients for {len(inputs)} inputs"
        )
    for tensor, grad in zip(inputs, in_grads):
        if grad is not None and id(tensor) in tracked:
            if grad._data.dtype != tensor._data.dtype:
                grad = _in_dtype(grad, tensor)
            accumulate(tensor, grad)


def _in_dtype(grad: Any, tensor: Any) -> Any:
    """``grad`` in ``tensor``'s dtype: MindSpore differentiates every numeric tensor, and an
    operand promoted by an op (int32 in an int32 * float32 product) was cast on the way in,
    so its cotangent is cast back on the way out (float to int truncates toward zero; a
    bool operand gets ``grad != 0``)."""
    return cast(grad, tensor._data.dtype)
