"""The PyNative tape: primitive applications recorded while a gradient is wanted.

Recording happens only inside a grad transform (``active()`` is a tape) and only for
applications with at least one input that depends on a watched tensor, so plain
inference builds no tape at all. The active tape lives in a ContextVar, like the
interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

_active: ContextVar[Tape | None] = ContextVar("framework_tape", default=None)



# Installed by the jit layer (framework.jit_api, on import; ``import framework`` does):
# ``convert(fn)``, how a function differentiated while tracing is converted (graph mode's
# source frontend: its tensor conditions become regions), and ``mode_aware(fn, name)``, how
# a gradient function called at top level in GRAPH_MODE runs (compiled, as MindSpore does).
# autograd imports nothing above it; without them functions run as they are. Here, below
# every other autograd module, so Tensor hooks (autograd.hooks) read it without grad.
HOOKS: dict[str, Callable[..., Any] | None] = {"convert": None, "mode_aware": None}


# The saved-tensor hooks in force (:mod:`framework.autograd.saved_tensors`): an object whose
# ``pack(prim, inputs, result)`` packs what a record saves, or None.
SAVED_HOOKS: ContextVar[Any] = ContextVar("framework_saved_tensors_hooks", default=None)


# True while a backward sweep runs that a tape records (a higher-order transform), inside
# the regions it builds too (they pause the tape): gradient rules whose usual form is not
# differentiable again (a graph-mode loop's WhileGrad) choose a differentiable one then.
RECORDED_SWEEP: ContextVar[bool] = ContextVar("framework_recorded_sweep", default=False)


def active() -> Tape | None:
    """The tape recording now, or None."""
    return _active.get()


class Tape:
    """Records of one gradient transform. ``parent``: the tape of the transform this one
    runs inside (``grad`` of ``grad``): every application is offered to it too, so the outer
    transform sees the inner one's forward pass and, when the inner backward pass runs with
    the parent recording, that pass as well (its bprops are framework ops: differentiable)."""

    __slots__ = ("records", "tracked", "saved", "_watched", "_moved", "parent")

    def __init__(self, parent: Tape | None = None) -> None:
        self.parent = parent
        self.records: list[tuple[Any, tuple, Any]] = []
        self.saved: dict[int, Any] = {}  # record index -> its packed saved tensors
        self.tracked: set[int] = set()
        self._watched: list[Any] = []  # keeps watched tensors alive so ids stay unique
        self._moved: dict[int, Any] = {}  # id(watched tensor) -> holder of its first value

    def resolve(self, tensor: Any) -> Any:
        """The tensor that holds ``tensor``'s watched value (differs after ``x[i] = v``)."""
        return self._moved.get(id(tensor), tensor)

    def rebind(self, tensor: Any, new: Any) -> None:
        """``tensor`` takes over ``new``'s value (item assignment): past records that used
        ``tensor`` now use a holder of its old value, records of ``new`` use ``tensor``."""
        from ..common.tensor import Tensor

        old = Tensor._wrap(tensor._data)
        swap = {id(tensor): old, id(new): tensor}

        def fix(values: Any) -> Any:
            if isinstance(values, tuple):
                return tuple(swap.get(id(v), v) for v in values)
            return swap.get(id(values), values)

        self.records = [(prim, fix(ins), fix(out)) for prim, ins, out in self.records]
        if id(tensor) in self.tracked:
            self.tracked.add(id(old))
        if any(w is tensor for w in self._watched) and id(tensor) not in self._moved:
            self._moved[id(tensor)] = old
        self.tracked.discard(id(tensor))
        if id(new) in self.tracked:
            self.tracked.discard(id(new))
            self.tracked.add(id(tensor))
        self._watched.append(old)  # keeps the holder (and its id) alive
        if self.parent is not None:
            self.parent.rebind(tensor, new)

    def watch(self, tensor: Any) -> None:
        self.tracked.add(id(tensor))
        self._watched.append(tensor)

    def record(self, prim: Any, inputs: tuple, result: Any) -> None:
        if self.parent is not None:
            self.parent.record(prim, inputs, result)
        if not prim.differentiable and not prim.first_order_only:
            return
        tracked = self.tracked
        for t in inputs:
            if id(t) in tracked:
                break
        else:
            return
        if not prim.differentiable:
            # a gradient kernel on a tracked input: refused only if a cotangent reaches it
            # (P.CTCLoss's unused gradient output in a first-order loss is fine)
            prim = _Refusal(prim)
        if isinstance(result, tuple):
            tracked.update(id(o) for o in result)
        else:
            tracked.add(id(result))
        hooks = SAVED_HOOKS.get()
        if hooks is not None and not isinstance(prim, _Refusal):
            saved = hooks.pack(prim, inputs, result)
            if saved is not None:
                self.saved[len(self.records)] = saved
        self.records.append((prim, inputs, result))


class recording:
    """Context manager making ``tape`` the active tape (``None`` pauses recording)."""

    __slots__ = ("tape", "_token")

    def __init__(self, tape: Tape | None) -> None:
        self.tape = tape

    def __enter__(self) -> Tape | None:
        self._token = _active.set(self.tape)
        return self.tape

    def __exit__(self, *exc: object) -> None:
        _active.reset(self._token)


def rebind(tensor: Any, new: Any) -> None:
    """Item assignment on ``tensor``: tell the active tape (if any), see ``Tape.rebind``."""
    tape = _active.get()
    if tape is not None:
        tape.rebind(tensor, new)


class _Refusal:
    """The tape record of a ``first_order_only`` primitive (a gradient kernel with no gradient
    of its own) applied to a tracked input: its bprop, run only when a cotangent reaches its
    output (a higher-order derivative that needs it), refuses by name."""

    differentiable = True
    first_order_only = False
    none_douts = False

    def __init__(self, prim: Any) -> None:
        self.prim = prim
        self.name = prim.name

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        prim = self.prim
        raise NotImplementedError(
            f"{prim.name} ({prim.first_order_reason}) stops a higher-order derivative: "
            f"differentiate a function that does not need {prim.name}'s gradient, or take one "
            "gradient only")


class _Identity:
    """The tape record linking a differentiated input to its fresh identity (cotangent as is)."""

    name = "Identity"
    differentiable = True
    first_order_only = False
    none_douts = False

    def bprop(self, x: Any, *, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        return (dout,)


_IDENTITY = _Identity()


def fresh_identity(tensor: Any, outer: Tape | None, data: Any = None) -> Any:
    """A new Tensor object holding ``tensor``'s value (``data`` when given: a Parameter's
    traced value), which a transform watches; an outer tape (a transform this one runs
    inside) records it as an identity of ``tensor``."""
    from ..common.tensor import Tensor

    fresh = Tensor._wrap(tensor._data if data is None else data)
    if outer is not None:
        outer.record(_IDENTITY, (tensor,), fresh)
    return fresh
