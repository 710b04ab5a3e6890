"""Gradient hooks, both modes: ``ops.HookBackward``, ``Tensor.register_hook`` and the tape
records that Cell backward hooks (:mod:`framework.nn.cell_hooks`) are made of.

Contracts:

- :class:`HookHandle` is what every ``register_*hook`` returns: ``remove()`` takes its hook
  off (twice is harmless); ``handle_id`` is unique per process.
- :func:`attach` ``(record, tensors)`` is an identity with a gradient rule: it returns new
  Tensor objects sharing the inputs' data (no kernel, no IR node) and, where a tape records
  and an input is tracked, records ``(record, inputs, outputs)`` on it, so that the reverse
  sweep calls ``record.rule(inputs, douts, needs)`` (``douts`` a tuple, None for an output
  that got no gradient) for the inputs' cotangents. The same in PyNative and while
  tracing (graph mode): there the rule's operations become backward nodes.
- Tensor hooks (:func:`register_tensor_hook`): a hook sees a tensor's complete cotangent
  (every use summed) when the reverse sweep reaches it; hooks run in registration order,
  each on the previous one's result, and a returned value (not None) replaces the
  cotangent for the rest of the sweep. The sweep asks :func:`run_tensor_hooks` only while
  some tensor has hooks (``TENSOR_HOOKS`` non-empty). While tracing, a second hook on one
  tensor is refused (RuntimeError), as MindSpore 2.10's graph mode does.
- :class:`HookBackward` (MindSpore's primitive): identity forward; in the backward pass
  ``hook_fn(grads)`` gets the tuple of its outputs' cotangents and what it returns (a
  tuple, a Tensor, or None for "unchanged") becomes its inputs' cotangents. In graph mode
  (tracing) it is left out with a warning, as MindSpore 2.10 eliminates it there.
- Hook functions run while tracing are first converted by the graph-mode frontend
  (``tape.HOOKS["convert"]``), so their ``print`` is a runtime print, as in MindSpore.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..primitive import Primitive
from . import tape as _tape

_ids = itertools.count(1)


def check_hook(hook_fn: Any, where: str = "") -> None:
    """MindSpore's TypeError for a hook that is not callable (plus where it was given)."""
    if not callable(hook_fn):
        at = f" ({where}: hook_fn must be callable)" if where else ""
        raise TypeError(f"Expected a callable hook function, but got {type(hook_fn).__name__}.{at}")


class HookHandle:
    """A registered hook: ``remove()`` takes it off its table."""

    def __init__(self, hooks: OrderedDict, hook_fn: Any, prepend: bool = False) -> None:
        self.handle_id = next(_ids)
        self.hooks = hooks
        self.graph_only = False  # a tensor hook registered while tracing (see remove)
        hooks[self.handle_id] = hook_fn
        if prepend:
            hooks.move_to_end(self.handle_id, last=False)

    def remove(self) -> None:
        if self.graph_only:
            from ..interpreters import is_tracing

            if is_tracing():
                raise AttributeError("graph mode: a tensor hook registered inside a compiled "
                                     "function cannot be removed there (MindSpore 2.10 refuses "
                                     "it too); remove it outside, or do not register it")
        self.hooks.pop(self.handle_id, None)


def as_traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as graph mode runs it: converted by the frontend while tracing, else itself."""
    from ..interpreters import is_tracing
    convert = _tape.HOOKS["convert"]
    return convert(fn) if convert is not None and is_tracing() else fn


# -- identity records ----------------------------------------------------------------------
class HookRecord(Primitive, abstract=True):
    """A tape record with a Python gradient rule (never applied by an interpreter)."""

    none_douts = True

    def __init__(self, label: str, rule: Callable[[tuple, tuple, tuple], tuple]) -> None:
        super().__init__()
        self.label, self.rule = label, rule
        self.recorded = False  # set by attach: whether a tape took the record

    @property
    def name(self) -> str:
        return self.label

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        douts = dout if isinstance(out, tuple) else (dout,)
        return tuple(self.rule(inputs, douts, needs))


def attach(record: HookRecord, tensors: tuple) -> tuple:
    """Identity outputs of ``tensors`` with ``record``'s gradient rule (see the module doc).
    Returns the new tensors, one per input, and sets ``record.recorded``."""
    from ..common.tensor import Tensor

    outs = tuple(Tensor._wrap(t._data) for t in tensors)
    tape = _tape.active()
    before = len(tape.records) if tape is not None else 0
    if tape is not None:
        tape.record(record, tuple(tensors), outs if len(outs) != 1 else outs[0])
    record.recorded = tape is not None and len(tape.records) > before
    return outs


def replacement(result: Any, current: tuple, who: str) -> tuple:
    """A hook's return value as cotangents: None keeps ``current``, a Tensor is one."""
    from ..common.tensor import Tensor

    if result is None:
        return current
    result = (result,) if isinstance(result, Tensor) else tuple(result)
    if len(result) != len(current):
        raise ValueError(f"{who}: the hook returned {len(result)} gradients for "
                         f"{len(current)} tensors")
    return result


# -- HookBackward --------------------------------------------------------------------------
class HookBackward:
    """``ops.HookBackward(hook_fn, cell_id="")``: see the module docstring."""

    def __init__(self, hook_fn: Callable[..., Any], cell_id: str = "") -> None:
        check_hook(hook_fn)
        if not isinstance(cell_id, str):
            raise TypeError(f"HookBackward: cell_id must be a str, got {type(cell_id).__name__}")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def __call__(self, *inputs: Any) -> Any:
        from ..common.tensor import Tensor
        from ..interpreters import is_tracing

        if not inputs or not all(isinstance(t, Tensor) for t in inputs):
            raise TypeError("HookBackward: the inputs must be one or more Tensors")
        if is_tracing():
            warnings.warn("HookBackward: hook operations do not work in graph mode or in functions "
                          "decorated with 'jit'; the hook is left out (as MindSpore does)",
                          stacklevel=2)
            return inputs[0] if len(inputs) == 1 else inputs
        outs = attach(HookRecord("HookBackward", self._rule), inputs)
        return outs[0] if len(outs) == 1 else outs

    def _rule(self, inputs: tuple, douts: tuple, needs: tuple) -> tuple:
        from ..ops.creation import zeros_like

        grads = tuple(zeros_like(t) if d is None else d for t, d in zip(inputs, douts))
        return replacement(self.hook_fn(grads), grads, "HookBackward")


# -- Tensor hooks --------------------------------------------------------------------------
# id(tensor) -> (weak reference to it, its hooks by handle id)
TENSOR_HOOKS: dict[int, tuple[weakref.ref, OrderedDict]] = {}


def _forget(key: int, ref: weakref.ref) -> None:
    entry = TENSOR_HOOKS.get(key)
    if entry is not None and entry[0] is ref:
        del TENSOR_HOOKS[key]


def register_tensor_hook(tensor: Any, hook_fn: Callable[[Any], Any]) -> HookHandle:
    """``tensor.register_hook(hook_fn)``: see the module docstring."""
    from ..interpreters import is_tracing

    check_hook(hook_fn)
    key = id(tensor)
    entry = TENSOR_HOOKS.get(key)
    if entry is None or entry[0]() is not tensor:
        ref = weakref.ref(tensor, lambda r, k=key: _forget(k, r))
        entry = TENSOR_HOOKS[key] = (ref, OrderedDict())
    if entry[1] and is_tracing():
        raise RuntimeError("It is not supported to register multiple hooks for a Tensor in graph "
                           "mode (as in MindSpore); register one hook that does both")
    handle = HookHandle(entry[1], hook_fn)
    handle.graph_only = is_tracing()
    return handle


def share_tensor_hooks(source: Any, target: Any) -> None:
    """``target`` (a fresh stand-in for ``source``, e.g. a differentiated input) gets
    ``source``'s hooks: the same table, so a removal shows in both."""
    entry = TENSOR_HOOKS.get(id(source))
    if entry is not None and entry[0]() is source and entry[1]:
        key = id(target)
        TENSOR_HOOKS[key] = (weakref.ref(target, lambda r, k=key: _forget(k, r)), entry[1])


def tensor_hooks(leaves: list[Any]) -> tuple:
    """``(position, hook functions)`` of each of ``leaves`` that has tensor hooks (``()`` when
    none has): graph mode's cache key for the hooks a trace bakes in."""
    if not TENSOR_HOOKS:
        return ()
    found = []
    for i, leaf in enumerate(leaves):
        entry = TENSOR_HOOKS.get(id(leaf))
        if entry is not None and entry[0]() is leaf and entry[1]:
            found.append((i, tuple(entry[1].values())))
    return tuple(found)


def run_tensor_hooks(tensor: Any, grad: Any) -> Any:
    """``grad`` after ``tensor``'s hooks (itself where it has none)."""
    entry = TENSOR_HOOKS.get(id(tensor))
    if entry is None or grad is None or entry[0]() is not tensor:
        return grad
    for hook in list(entry[1].values()):
        result = as_traced(hook)(grad)
        if result is not None:
            grad = result[0] if isinstance(result, tuple) and len(result) == 1 else result
    return grad
