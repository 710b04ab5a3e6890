"""Hooks on the tensors a gradient saves: MindSpore's ``saved_tensors_hooks`` and
``register_saved_tensors_hooks``.

Contract (as MindSpore 2.10 behaves):

- The tensors an operation *saves* for its gradient are those its bprop reads: the inputs it
  names and its output when it reads ``out`` (``x * y`` saves ``x`` and ``y``, ``exp(x)`` its
  output, a bias addition nothing). They are found once per primitive class by reading which
  of its bprop's parameters its code loads for more than their ``shape``/``dtype``
  (:func:`saved_slots`); a bprop that cannot be read saves all its inputs and its output.
  Only Tensors are saved. ``unpack_hook`` must give back a Tensor of the saved one's shape
  (TypeError, ValueError).
- While hooks are active and a gradient is being recorded, each operation recorded calls
  ``pack_hook(t)`` on each tensor it saves, inputs in order then the output, when it runs
  (forward), and keeps what pack returns (any object); the backward pass calls
  ``unpack_hook(packed)`` on each when it reaches that operation (records in reverse, slots in
  order) and the bprop reads what unpack returns instead of the tensor. Nothing is packed
  outside a gradient. Pack and unpack run unrecorded (their own operations are not
  differentiated).
- ``with saved_tensors_hooks(pack, unpack):`` sets them in PyNative, innermost first; in graph
  mode (a traced function, ``jit``) entering it is a TypeError, as in MindSpore.
- ``@register_saved_tensors_hooks(pack, unpack)`` on a function: in graph mode, the operations
  traced inside the function use them (pack and unpack are traced into the compiled graph); in
  PyNative it does nothing, as in MindSpore.
"""

from __future__ import annotations

import dis
import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..interpreters import is_tracing
from . import tape as _tape

_METADATA = frozenset({"shape", "dtype", "ndim", "size"})


@functools.cache
def saved_slots(bprop: Callable[..., Any]) -> tuple[tuple[int, ...] | None, bool]:
    """(indices of the inputs ``bprop`` reads or None for all, whether it reads ``out``)."""
    fn = inspect.unwrap(bprop)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None, True
    loaded: set[str] = set(code.co_cellvars)
    instructions = list(dis.get_instructions(code))
    for ins, after in zip(instructions, instructions[1:] + [None]):
        if not ins.opname.startswith(("LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE")):
            continue
        if after is not None and after.opname == "LOAD_ATTR" and after.argval in _METADATA:
            continue  # ``x.shape``: what the tensor is, not its values
        loaded.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
    if code.co_flags & inspect.CO_VARARGS:  # ``*inputs``: which ones is not written in the code
        return None, "out" in loaded
    params = code.co_varnames[1:code.co_argcount]  # after ``self``
    return tuple(i for i, name in enumerate(params) if name in loaded), "out" in loaded


def _compiled(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``hook`` as graph mode compiles it (its ``print`` a runtime print ...) while tracing."""
    convert = _tape.HOOKS["convert"]
    return convert(hook) if convert is not None and is_tracing() else hook


class _Hooks:
    """An active (pack, unpack) pair: what :class:`framework.autograd.tape.Tape` calls."""

    __slots__ = ("pack_hook", "unpack_hook")

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = _compiled(pack_hook)
        self.unpack_hook = _compiled(unpack_hook)

    def pack(self, prim: Any, inputs: tuple, result: Any) -> _Saved | None:
        which, reads_out = saved_slots(type(prim).bprop)
        indices = [i for i in (range(len(inputs)) if which is None else which)
                   if i < len(inputs) and hasattr(inputs[i], "_data")]
        with _tape.recording(None):
            packed = [(i, self.pack_hook(inputs[i])) for i in indices]
            out = self.pack_hook(result) if reads_out and not isinstance(result, tuple) else None
        if not packed and not (reads_out and not isinstance(result, tuple)):
            return None
        return _Saved(self.unpack_hook, packed, reads_out and not isinstance(result, tuple), out)


class _Saved:
    """One record's packed tensors; :meth:`restore` unpacks them for its bprop."""

    __slots__ = ("unpack_hook", "packed", "has_out", "out")

    def __init__(self, unpack_hook: Callable[[Any], Any], packed: list, has_out: bool, out: Any) -> None:
        self.unpack_hook, self.packed, self.has_out, self.out = unpack_hook, packed, has_out, out

    def restore(self, inputs: tuple, result: Any) -> tuple[tuple, Any]:
        args = list(inputs)
        for i, packed in self.packed:
            args[i] = _unpacked(self.unpack_hook(packed), inputs[i])
        out = _unpacked(self.unpack_hook(self.out), result) if self.has_out else result
        return tuple(args), out


def _unpacked(value: Any, saved: Any) -> Any:
    if not hasattr(value, "_data"):
        raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor (the saved one "
                        f"had shape {tuple(saved.shape)}), got {type(value).__name__}")
    if tuple(value.shape) != tuple(saved.shape):
        raise ValueError(f"saved_tensors_hooks: unpack_hook returned a Tensor of shape "
                         f"{tuple(value.shape)} for a saved one of shape {tuple(saved.shape)}")
    return value


class saved_tensors_hooks:  # noqa: N801  (MindSpore's name)
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` (see the module docstring)."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._tokens: list[Any] = []

    def __enter__(self) -> saved_tensors_hooks:
        if is_tracing():
            raise TypeError("saved_tensors_hooks is not supported in graph mode (jit); decorate the "
                            "function with register_saved_tensors_hooks(pack_hook, unpack_hook) instead")
        self._tokens.append(_tape.SAVED_HOOKS.set(_Hooks(self.pack_hook, self.unpack_hook)))
        return self

    def __exit__(self, *exc: object) -> None:
        _tape.SAVED_HOOKS.reset(self._tokens.pop())


def register_saved_tensors_hooks(pack_hook: Callable[[Any], Any],
                                 unpack_hook: Callable[[Any], Any]) -> Callable[[Callable], Callable]:
    """A decorator: graph mode traces the function with these hooks (see the module docstring)."""

    def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def hooked(*args: Any, **kwargs: Any) -> Any:
            if not is_tracing():  # PyNative: MindSpore's decorator does nothing there
                return fn(*args, **kwargs)
            token = _tape.SAVED_HOOKS.set(_Hooks(pack_hook, unpack_hook))
            try:
                return fn(*args, **kwargs)
            finally:
                _tape.SAVED_HOOKS.reset(token)

        return hooked

    return decorator
