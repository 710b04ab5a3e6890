"""Operators that run a user's Python function: ``P.PyFunc``, ``P.Custom`` (its ``'pyfunc'``
kind) and ``P.InsertGradientOf``.

``PyFunc`` and ``Custom`` call a function of NumPy arrays with the inputs' values and
return its results as tensors of the declared shapes and dtypes. The call is a primitive
whose NumPy kernel is that function, so graph mode calls it from the compiled code as any
host kernel (MindSpore runs such operators on the host too). ``PyFunc`` has no gradient;
``Custom`` has the gradient its ``bprop(*inputs, out, dout)`` gives (none without one).
``InsertGradientOf(f)`` returns its input unchanged and passes the gradient arriving at it
through ``f`` (written with framework ops, so both modes trace it).

Contracts:

- ``PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)((x1, x2, ...))``:
  the tuple ``fn(x1, ..., xn)`` (NumPy arrays), each output cast to its ``out_types`` dtype
  and of its ``out_shapes`` shape (``[]``: a scalar);
- ``Custom(func, out_shape, out_dtype, func_type='pyfunc', bprop=None)(*inputs)``:
  ``func(*arrays)`` of shape ``out_shape`` (a shape, or a function of the inputs' shapes)
  and dtype ``out_dtype`` (likewise of their dtypes); a list of shapes gives a tuple of
  outputs;
- ``InsertGradientOf(f)(x)``: ``x``; the gradient of ``x`` is ``f(dout)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..primitive import Primitive, Spec
from ._utils import argument_error


def _as_arrays(who: str, result: Any, specs: tuple[Spec, ...]) -> tuple[np.ndarray, ...]:
    values = result if isinstance(result, tuple | list) else (result,)
    if len(values) != len(specs):
        raise argument_error(who, ValueError(
            f"the function returned {len(values)} outputs, {len(specs)} were declared"))
    arrays = []
    for i, (value, spec) in enumerate(zip(values, specs)):
        array = np.asarray(value)
        if array.shape != spec.shape:
            raise argument_error(who, ValueError(
                f"output {i} of the function has shape {array.shape}, {spec.shape} was declared"))
        arrays.append(array.astype(spec.dtype, copy=False))
    return tuple(arrays)


class HostFunction(Primitive, abstract=True):
    """Calls ``fn`` on the inputs' arrays; outputs of the Specs ``specs`` (no gradient).

    Out of ``Primitive.registry`` (``abstract``): its kernel is the user's function, so the
    registry's harnesses have nothing fixed to check; the recorded programs check it."""

    differentiable = False

    def __init__(self, fn: Callable, specs: tuple[Spec, ...], who: str = "PyFunc") -> None:
        super().__init__(fn=fn, specs=specs, who=who)
        self.num_outputs = len(specs)  # type: ignore[misc]

    def infer(self, *inputs: Any) -> Spec | tuple[Spec, ...]:
        return self.specs[0] if self.num_outputs == 1 else tuple(self.specs)

    def kernel(self, *arrays: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        out = _as_arrays(self.who, self.fn(*arrays), self.specs)
        return out[0] if self.num_outputs == 1 else out


class DifferentiableHostFunction(HostFunction, abstract=True):
    """A :class:`HostFunction` whose gradient is ``bprop(*inputs, out, dout)``."""

    differentiable = True

    def __init__(self, fn: Callable, specs: tuple[Spec, ...], bprop: Callable, who: str = "Custom") -> None:
        Primitive.__init__(self, fn=fn, specs=specs, who=who, grad_fn=bprop)
        self.num_outputs = len(specs)  # type: ignore[misc]

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        grads = self.grad_fn(*inputs, out, dout)
        grads = tuple(grads) if isinstance(grads, tuple | list) else (grads,)
        if len(grads) != len(inputs):
            raise argument_error(self.who, ValueError(
                f"bprop returned {len(grads)} gradients for {len(inputs)} inputs"))
        return grads


def _spec(who: str, shape: Any, dtype: Any) -> Spec:
    if not isinstance(shape, list | tuple) or not all(isinstance(d, int | np.integer) for d in shape):
        raise argument_error(who, TypeError(f"an output shape must be a list of ints, got {shape!r}"))
    return Spec(tuple(int(d) for d in shape), mstype.to_np(dtype))


def _is_shape_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and len(value) > 0 and \
        all(isinstance(v, list | tuple) for v in value)


class PyFunc:
    """``P.PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)``: see the
    module docstring."""

    def __init__(self, fn: Callable, in_types: Any, in_shapes: Any, out_types: Any, out_shapes: Any,
                 stateful: bool = True) -> None:
        if not callable(fn):
            raise argument_error("PyFunc", TypeError(f"fn must be a function, got {type(fn).__name__}"))
        if len(out_types) != len(out_shapes) or len(in_types) != len(in_shapes):
            raise argument_error("PyFunc", ValueError(
                "in_types/in_shapes and out_types/out_shapes must have one entry per input/output"))
        self.fn, self.in_types, self.in_shapes, self.stateful = fn, list(in_types), list(in_shapes), stateful
        self.out_types, self.out_shapes = list(out_types), list(out_shapes)
        self._prim = HostFunction(fn, tuple(_spec("PyFunc", s, t) for s, t in zip(out_shapes, out_types)))

    def __call__(self, *args: Any) -> tuple:
        inputs = tuple(args[0]) if len(args) == 1 and isinstance(args[0], tuple | list) else args
        if len(inputs) != len(self.in_types):
            raise argument_error("PyFunc", ValueError(
                f"{len(self.in_types)} inputs were declared, got {len(inputs)}"))
        for i, (x, shape) in enumerate(zip(inputs, self.in_shapes)):
            if tuple(x.shape) != tuple(shape):
                raise argument_error("PyFunc", ValueError(
                    f"input {i} has shape {tuple(x.shape)}, {tuple(shape)} was declared"))
        out = self._prim(*inputs)
        return tuple(out) if isinstance(out, tuple | list) else (out,)


class Custom:
    """``P.Custom(func, out_shape=None, out_dtype=None, func_type='pyfunc', bprop=None,
    reg_info=None)``: see the module docstring (only ``'pyfunc'`` runs here: the other kinds
    launch compiled kernel libraries)."""

    def __init__(self, func: Any, out_shape: Any = None, out_dtype: Any = None, func_type: str = "pyfunc",
                 bprop: Callable | None = None, reg_info: Any = None) -> None:
        if func_type != "pyfunc":
            raise argument_error("Custom", ValueError(
                f"func_type {func_type!r} launches a compiled kernel library, which this framework "
                "does not load; write the operator as func_type='pyfunc' (a NumPy function)"))
        if not callable(func):
            raise argument_error("Custom", TypeError(f"func must be a function, got {type(func).__name__}"))
        if out_shape is None or out_dtype is None:
            raise argument_error("Custom", ValueError("func_type 'pyfunc' needs out_shape and out_dtype"))
        self.func, self.out_shape, self.out_dtype, self.func_type = func, out_shape, out_dtype, func_type
        self.bprop, self.reg_info = bprop, reg_info

    def __call__(self, *inputs: Any) -> Any:
        shape, dtype = self.out_shape, self.out_dtype
        if callable(shape):
            shape = shape(*[list(x.shape) for x in inputs])
        if callable(dtype):
            dtype = dtype(*[x.dtype for x in inputs])
        if _is_shape_list(shape):
            dtypes = dtype if isinstance(dtype, list | tuple) else [dtype] * len(shape)
            specs = tuple(_spec("Custom", s, t) for s, t in zip(shape, dtypes))
        else:
            specs = (_spec("Custom", shape, dtype),)
        prim = HostFunction(self.func, specs, "Custom") if self.bprop is None else \
            DifferentiableHostFunction(self.func, specs, self.bprop, "Custom")
        return prim(*inputs)


class InsertGradientOf(Primitive, abstract=True):
    """``P.InsertGradientOf(f)(x)``: ``x``, its gradient ``f(dout)`` (see the module docstring;
    out of the registry as :class:`HostFunction`: its gradient is the user's function)."""

    def __init__(self, f: Callable) -> None:
        if not callable(f):
            raise argument_error("InsertGradientOf", TypeError(
                f"f must be a function, got {type(f).__name__}"))
        super().__init__(f=f)

    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return x.copy()

    def bprop(self, x: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        return (self.f(dout),)
