"""MindSpore 2.10's Cell hooks: ``register_forward_pre_hook``, ``register_forward_hook``,
``register_backward_pre_hook`` and ``register_backward_hook`` (a mixin of ``nn.Cell``).

Contracts (checked against MindSpore 2.10 on CPU):

- Each ``register_*`` checks that the hook is callable (TypeError) and returns a
  :class:`~framework.autograd.hooks.HookHandle`; ``handle.remove()`` takes the hook off.
  The tables live in the cell's ``__dict__`` as ``_forward_pre_hooks``, ``_forward_hooks``,
  ``_backward_pre_hooks`` and ``_backward_hooks`` (handle id -> hook), with each forward
  hook's flags in ``_hook_flags``.
- A call of the cell runs (:func:`call_with_hooks`): forward pre-hooks
  ``hook(cell, args)`` (``with_kwargs``: ``hook(cell, args, kwargs)`` returning None or
  ``(args, kwargs)``), a non-tuple result becoming the one argument; then ``construct``;
  then forward hooks ``hook(cell, args, output)`` (``with_kwargs``: ``hook(cell, args,
  kwargs, output)``), a result (not None) replacing the output; ``always_call`` hooks run
  even when ``construct`` raised. ``prepend=True`` puts a hook first.
- Backward hooks see the cell as it is called, forward hooks included: the cell's tensor
  arguments after the pre-hooks and its tensor outputs after the forward hooks are wrapped
  in identity records (:func:`framework.autograd.hooks.attach`). In the backward pass
  ``backward_pre_hook(cell, grad_output)`` gets the outputs' cotangents (None for an output
  nothing used) and may return new ones (a tuple, or one Tensor); then
  ``backward_hook(cell, grad_input, grad_output)`` gets the tensor arguments' cotangents
  (None where an argument needs none) and may return new ones.
- Graph mode (while tracing) runs the same hooks inside the compiled function, converted
  by the frontend (their ``print`` is a runtime print), as MindSpore 2.10 does; as there,
  ``prepend`` is ignored (registration order), ``with_kwargs`` hooks are refused
  (TypeError), and a compiled function keeps the hooks it was compiled with.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..autograd.hooks import HookHandle, HookRecord, as_traced, attach, check_hook, replacement
from ..common.tensor import Tensor
from ..interpreters import is_tracing

TABLES = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")


def _table(cell: Any, name: str) -> OrderedDict:
    table = cell.__dict__.get(name)
    if table is None:
        table = OrderedDict()
        object.__setattr__(cell, name, table)
    return table


def _register(cell: Any, table: str, hook_fn: Any, what: str, prepend: bool = False,
              **flags: bool) -> HookHandle:
    check_hook(hook_fn, f"{type(cell).__name__}.{what}")
    handle = HookHandle(_table(cell, table), hook_fn, prepend)
    if any(flags.values()):
        _table(cell, "_hook_flags")[handle.handle_id] = flags
    return handle


class CellHooks:
    """The four ``register_*hook`` methods of ``nn.Cell``."""

    def register_forward_pre_hook(self, hook_fn: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> HookHandle:
        """``hook_fn(cell, args)`` before each call (see the module docstring)."""
        return _register(self, "_forward_pre_hooks", hook_fn, "register_forward_pre_hook",
                         prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook_fn: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False) -> HookHandle:
        """``hook_fn(cell, args, output)`` after each call; a result replaces the output."""
        return _register(self, "_forward_hooks", hook_fn, "register_forward_hook", prepend,
                         with_kwargs=with_kwargs, always_call=always_call)

    def register_backward_pre_hook(self, hook_fn: Callable[..., Any]) -> HookHandle:
        """``hook_fn(cell, grad_output)`` in the backward pass, before the cell's own."""
        return _register(self, "_backward_pre_hooks", hook_fn, "register_backward_pre_hook")

    def register_backward_hook(self, hook_fn: Callable[..., Any]) -> HookHandle:
        """``hook_fn(cell, grad_input, grad_output)`` once the cell's input cotangents are known."""
        return _register(self, "_backward_hooks", hook_fn, "register_backward_hook")


def has_hooks(cell: Any) -> bool:
    d = cell.__dict__
    return bool(d.get("_forward_pre_hooks") or d.get("_forward_hooks")
                or d.get("_backward_pre_hooks") or d.get("_backward_hooks"))


def _hooks(cell: Any, table: str, tracing: bool) -> list[tuple[Callable[..., Any], dict]]:
    """(hook, flags) in calling order: as arranged (prepend), or registration order while
    tracing; graph mode refuses ``with_kwargs`` hooks, as MindSpore 2.10 does."""
    hooks = cell.__dict__.get(table) or {}
    flags = cell.__dict__.get("_hook_flags") or {}
    keys = sorted(hooks) if tracing else list(hooks)
    found = []
    for key in keys:
        options = flags.get(key, {})
        if tracing and options.get("with_kwargs"):
            raise TypeError(f"{type(cell).__name__}: a forward hook registered with_kwargs=True "
                            "cannot run in graph mode (MindSpore 2.10 refuses it too); register "
                            "it without with_kwargs or call the cell in PyNative mode")
        found.append((as_traced(hooks[key]), options))
    return found


def _pre_hooks(cell: Any, args: tuple, kwargs: dict, tracing: bool) -> tuple[tuple, dict]:
    for hook, options in _hooks(cell, "_forward_pre_hooks", tracing):
        if options.get("with_kwargs"):
            result = hook(cell, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise TypeError(f"{type(cell).__name__}: a forward pre-hook with_kwargs must "
                                    f"return None or (args, kwargs), got {result!r}")
                args, kwargs = result
                args = args if isinstance(args, tuple) else (args,)
        else:
            result = hook(cell, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def _post_hooks(cell: Any, args: tuple, kwargs: dict, out: Any, tracing: bool,
                failed: bool = False) -> Any:
    for hook, options in _hooks(cell, "_forward_hooks", tracing):
        if failed and not options.get("always_call"):
            continue
        if options.get("with_kwargs"):
            result = hook(cell, args, kwargs, out)
        else:
            result = hook(cell, args, out)
        out = out if result is None else result
    return out


class _BackwardState:
    """One call's backward hooks: the output record runs the pre-hooks and keeps
    ``grad_output`` for the input record, which runs the hooks proper."""

    def __init__(self, cell: Any) -> None:
        self.cell = cell
        self.grad_output: tuple = ()
        self.inputs_recorded = False
        self.n_inputs = 0

    def output_rule(self, outs: tuple, douts: tuple, needs: tuple) -> tuple:
        cell, tracing = self.cell, is_tracing()
        if tracing:  # a compiled backward has no "no gradient": zeros, as MindSpore's graph
            from ..ops import functional as F

            douts = tuple(F.zeros_like(t) if d is None else d for t, d in zip(outs, douts))
        for hook, _ in _hooks(cell, "_backward_pre_hooks", tracing):
            douts = replacement(hook(cell, douts), douts, f"{type(cell).__name__} backward pre-hook")
        self.grad_output = douts
        if not self.inputs_recorded:  # no argument needs a gradient: the hooks run now
            self.input_rule((), (None,) * self.n_inputs, ())
        return douts

    def input_rule(self, ins: tuple, douts: tuple, needs: tuple) -> tuple:
        cell, tracing = self.cell, is_tracing()
        for hook, _ in _hooks(cell, "_backward_hooks", tracing):
            douts = replacement(hook(cell, douts, self.grad_output), douts,
                                f"{type(cell).__name__} backward hook")
        return douts


def _wrap_tensors(value: Any, record: HookRecord) -> Any:
    """``value`` (a Tensor or a tuple/list holding Tensors) with its Tensors replaced by
    identity outputs of ``record``; ``value`` itself where it holds none."""
    if isinstance(value, Tensor):
        return attach(record, (value,))[0]
    if isinstance(value, tuple | list):
        spots = [i for i, v in enumerate(value) if isinstance(v, Tensor)]
        if spots:
            outs = iter(attach(record, tuple(value[i] for i in spots)))
            items = [next(outs) if isinstance(v, Tensor) else v for v in value]
            return type(value)(items)
    return value


def call_with_hooks(cell: Any, run: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """``run(*args, **kwargs)`` (the cell's construct) with the cell's hooks around it."""
    from ..autograd import tape as _tape

    if not has_hooks(cell):
        return run(*args, **kwargs)
    d = cell.__dict__
    tracing = is_tracing()
    args, kwargs = _pre_hooks(cell, args, kwargs, tracing)
    state = None
    if (d.get("_backward_pre_hooks") or d.get("_backward_hooks")) and _tape.active() is not None:
        state = _BackwardState(cell)
        state.n_inputs = sum(isinstance(a, Tensor) for a in args)
        record = HookRecord(f"{type(cell).__name__}.backward_hook", state.input_rule)
        args = _wrap_tensors(args, record)
        state.inputs_recorded = record.recorded
    try:
        out = run(*args, **kwargs)
    except Exception:
        _post_hooks(cell, args, kwargs, None, tracing, failed=True)
        raise
    out = _post_hooks(cell, args, kwargs, out, tracing)
    if state is not None:
        out = _wrap_tensors(out, HookRecord(f"{type(cell).__name__}.backward_pre_hook",
                                            state.output_rule))
    return out
