"""Primitives: one class per operation holding its shape rule, NumPy kernel and bprop
(its lowerings live in each backend's table, see below).

A primitive class defines
- ``infer(*inputs) -> Spec | tuple[Spec, ...]``: the shape/dtype rule. Inputs are
  anything with ``.shape`` and ``.dtype`` (NumPy arrays in PyNative, IR values when
  tracing); it raises ``ValueError``/``TypeError`` for bad shapes or dtypes. One Spec
  when ``num_outputs`` is 1, else a tuple of ``num_outputs`` Specs; callers use
  ``out_specs``, which always gives the tuple.
- ``kernel(*arrays)``: the NumPy implementation (vectorized, no per-element Python).
- ``bprop(*inputs, out, dout, needs) -> tuple``: the vector-Jacobian product, one
  entry per input (``None`` where no gradient flows; ``needs[i]`` False means input
  i needs none and may be skipped), written with framework ops so the same rule runs
  eagerly on the tape and, traced, builds backward graphs. ``dout`` of a multi-output
  primitive is a tuple with zeros for outputs nothing used (None with ``none_douts``).

Attributes (``transpose_a``, ``axis``, ...) are constructor arguments and part of the
primitive's identity; tensors are the call arguments. Op identity is the class, never
a string.

Lowerings (graph mode) are not held here: each backend keeps a table from primitive
class to lowering function (the TVM one: ``framework.backend.tvm.lower.lowerings``, looked
up with ``lowering_for(prim)``). A lowering is called as ``lower(ctx, *args)``:

- ``ctx.prim`` is the primitive (its attributes), ``ctx.bb`` the backend's builder
  (TVM: a ``relax.BlockBuilder`` inside a dataflow block), ``ctx.in_specs`` and
  ``ctx.out_specs`` the IR node's input and output Specs (taken from the node, i.e.
  what ``out_specs`` gave when it was traced; lowerings never re-run ``infer``);
- ``args`` are the already-lowered inputs, one per ``ctx.in_specs`` entry;
- it returns one backend expression, or a tuple of ``num_outputs`` of them, with
  exactly the shapes and dtypes of ``ctx.out_specs``.

Host-drawn randomness: a primitive with ``host_random = True`` (``Dropout``) gets its
random draw from the host at each run of the compiled function, so both modes consume
the framework's generator alike. The tracer adds the draw (a 0/1 mask shaped like the
first input) as an extra graph input after the primitive's own inputs: its node, its
``ctx.in_specs`` and its lowering's ``args`` end with the mask, while ``infer`` and
``kernel`` never see it (``Dropout`` lowers ``(x, mask)`` to
``(x * mask / keep_prob, mask)``). The draw's shape and dtype are ``random_spec(*inputs)``
(default: the first input's), its values ``draw_mask(shape, dtype)`` (``Multinomial``
draws uniforms of its own shape).
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar, NamedTuple

import numpy as np


class Spec(NamedTuple):
    """Abstract value: the shape and NumPy dtype of a tensor."""

    shape: tuple[int, ...]
    dtype: np.dtype


class Primitive:
    """Base class of every primitive; subclasses register themselves in ``registry``."""

    registry: ClassVar[list[type[Primitive]]] = []
    num_outputs: ClassVar[int] = 1
    # Set to False for primitives with no gradient (comparisons, argmax, one_hot ...).
    differentiable: ClassVar[bool] = True
    # True for a gradient kernel with no gradient of its own (a fused op's backward): a tape
    # that sees it applied to a tracked input (a higher-order derivative, which would miss its
    # terms) refuses it by name.
    first_order_only: ClassVar[bool] = False
    first_order_reason: ClassVar[str] = "a gradient kernel with no gradient of its own"
    # True for primitives whose random draw graph mode takes from the host at each run
    # (see the module docstring): the traced node gets the draw as an extra last input.
    host_random: ClassVar[bool] = False
    # True for primitives run for their effect (Print): never folded, merged or dropped.
    side_effect: ClassVar[bool] = False
    # True: outputs of a multi-output primitive that get no gradient arrive in ``bprop``'s
    # ``dout`` as None (not zeros), so that it can leave their terms out.
    none_douts: ClassVar[bool] = False
    # Region graphs of a structured control-flow node (framework.ir.control); () otherwise.
    regions: ClassVar[tuple] = ()
    region_labels: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not abstract:
            Primitive.registry.append(cls)
        if cls.__init__ is Primitive.__init__:
            # a primitive that defines no attributes takes none: ``Add()``, as MindSpore's
            # ``P.Add.__init__(self)`` (``Add(x=1)`` is a TypeError, not a stored attribute)
            cls.__init__ = _no_attributes  # type: ignore[method-assign]

    def __init__(self, **attrs: Any) -> None:
        self.attrs = attrs
        self.__dict__.update(attrs)

    @property
    def name(self) -> str:
        return type(self).__name__

    def infer(self, *inputs: Any) -> Spec | tuple[Spec, ...]:
        raise NotImplementedError(f"{self.name} has no shape rule")

    def out_specs(self, *inputs: Any) -> tuple[Spec, ...]:
        """``infer`` as a tuple of ``num_outputs`` Specs (shape of ints, NumPy dtype)."""
        specs = self.infer(*inputs)
        if self.num_outputs == 1:
            specs = (specs,)
        elif not isinstance(specs, tuple) or len(specs) != self.num_outputs:
            raise RuntimeError(f"{self.name}.infer must return {self.num_outputs} Specs, "
                               f"got {specs!r}")
        return tuple(Spec(tuple(int(d) for d in s.shape), np.dtype(s.dtype)) for s in specs)

    def random_spec(self, *inputs: Any) -> Spec:
        """Shape and dtype of a ``host_random`` primitive's draw: the first input's."""
        return Spec(tuple(inputs[0].shape), inputs[0].dtype)

    def kernel(self, *arrays: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        raise NotImplementedError(f"{self.name} has no NumPy kernel")

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        raise NotImplementedError(f"{self.name} has no gradient rule")

    def __call__(self, *args: Any) -> Any:
        return (_APPLY or _interpreters_apply())(self, args)

    def key(self) -> tuple:
        """Hashable identity (class + attributes), e.g. for caches and CSE."""
        return (type(self), tuple(sorted((k, _hashable(v)) for k, v in self.attrs.items())))

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items())
        return f"{self.name}({attrs})"


def _no_attributes(self: Primitive, **attrs: Any) -> None:
    """The constructor of a primitive without attributes: ``Add()``. A subclass that does
    define attributes passes them through it to ``Primitive.__init__``."""
    if attrs and type(self).__init__ is _no_attributes:
        raise TypeError(f"{type(self).__name__}() takes no attributes, got {sorted(attrs)}")
    Primitive.__init__(self, **attrs)


# what such a primitive's own constructor accepts (MindSpore's ``P.Add.__init__(self)``)
_no_attributes.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)])


_APPLY: Any = None  # interpreters.apply, imported on first use (the interpreters need us)


def _interpreters_apply() -> Any:
    global _APPLY
    from .interpreters import apply

    _APPLY = apply
    return apply


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, np.dtype):
        return value.str
    return value


def shape_str(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
