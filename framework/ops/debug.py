"""Printing from inside a network: ``ops.Print`` and compiled code's ``print``, as MindSpore
2.10 (CPU) writes them.

``PrintOp(template, style)`` applied to tensors writes ``template.format(*texts)`` each time
it runs: at once in PyNative, and in graph mode each time the compiled code reaches it (in
program order, inside branches only when taken, once per iteration in loops). It has no
outputs and is never folded, merged or dropped (``side_effect``). ``texts`` are the
tensors in the ``style`` they were traced or called in:

- ``"graph"`` (``print`` in a compiled function or GRAPH_MODE ``construct``, and ``ops.Print``
  there), :func:`graph_text`::

      Tensor(shape=[3], dtype=Float32, value=[ 1.00000001e-01 -2.50000000e+00  3.00000000e+00])
      Tensor(shape=[2, 2], dtype=Int64, value=
      [[   1 -200]
       [   3    4]])
      2.5                                  (a 0-d tensor: its bare value, see scalar_text)

  Floats are ``%.8e`` (``%.4e`` for 16-bit floats) right-aligned in a fixed 15 (11)
  columns, which a 3-digit exponent overflows (``nan``/``inf`` are right-aligned too;
  float32 subnormals show as zeros of their sign);
  integers are right-aligned to the widest element shown, bools are 5 wide; elements are
  separated by one space. A 1-d tensor above 1000 elements shows its first and last 3
  around ``...``; otherwise it wraps after every 12 floats or bools or 24 integers
  (``" \\n "``, and ``"\\n "`` after the last one when the count is a multiple). In a 2-d or
  higher tensor every dimension longer than 6 is shortened so (a ``...`` line between rows,
  `` ... `` inside one); rows are separated by a newline plus one space per depth, no blank
  lines. An empty tensor shows ``value=[]`` (MindSpore prints an uninitialised number).
- ``"repr"`` (``ops.Print`` called in PyNative): ``repr(tensor)``
  (:func:`framework.tensor_repr.tensor_repr`).

:func:`print_items` turns ``print``'s arguments into the lines compiled code prints: one
per argument; tuples, lists and dict values are flattened into one line per leaf, except
a tuple or list of only ints (``(1, 2)``, ``(3)``) or only floats (``( 1.50000000e+00,
2.50000000e+00)``); a Python bool prints as ``1``/``0``, a float as ``%g``.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..dtype import from_numpy
from ..interpreters import is_tracing
from ..primitive import Primitive, Spec
from ..tensor_repr import EDGE, FLAT_LIMIT, ROW_LIMIT, tensor_repr
from ._class_form import NoAttributes

PER_LINE = {"f": 12, "b": 12}  # elements per line of a 1-d tensor by dtype kind; others 24


def _dtype_name(array: np.ndarray) -> str:
    return str(from_numpy(array.dtype))


def scalar_text(value: Any) -> str:
    """A 0-d tensor or Python scalar as C++'s default stream writes it: floats ``%g``
    (``0.6``, ``1e-09``, ``-0``, ``nan``), bools ``1``/``0``, 8-bit integers of a tensor as
    the character they code."""
    if isinstance(value, bool | np.bool_):
        return "1" if value else "0"
    if isinstance(value, np.int8 | np.uint8):
        return chr(int(value) & 0xFF)
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    if isinstance(value, complex | np.complexfloating):
        return f"({value.real:g},{value.imag:g})"
    return str(value)


def _shown(length: int, limit: int) -> list[int | None]:
    """The indices shown along a dimension; None marks the ``...``."""
    if length <= limit:
        return list(range(length))
    return [*range(EDGE), None, *range(length - EDGE, length)]


def _cell(array: np.ndarray, limit: int) -> Any:
    """The element formatter: text of one element, right-aligned in its column."""
    kind = array.dtype.kind
    if kind == "f":
        digits, width = (4, 11) if array.dtype.itemsize <= 2 else (8, 15)
        return lambda v: (f"{float(v):.{digits}e}" if np.isfinite(v) else str(float(v))).rjust(width)
    if kind == "b":
        return lambda v: str(bool(v)).rjust(5)
    if kind == "c":
        return lambda v: f"({v.real:g},{v.imag:g})"
    shown = array[np.ix_(*[[i for i in _shown(n, limit) if i is not None] for n in array.shape])]
    width = max(len(str(int(v))) for v in (shown.min(), shown.max()))
    return lambda v: str(int(v)).rjust(width)


def _line(array: np.ndarray, cell: Any, limit: int, per_line: int) -> str:
    indices = _shown(array.shape[0], limit)
    wrap = limit == FLAT_LIMIT and None not in indices  # a 1-d tensor shown whole
    text = ""
    for k, i in enumerate(indices):
        text += "..." if i is None else cell(array[i])
        text += " " if k < len(indices) - 1 else ""
        text += "\n " if wrap and (k + 1) % per_line == 0 else ""
    return f"[{text}]"


def _block(array: np.ndarray, cell: Any, limit: int, per_line: int, depth: int) -> str:
    if array.ndim == 1:
        return _line(array, cell, limit, per_line)
    rows = ["..." if i is None else _block(array[i], cell, limit, per_line, depth + 1)
            for i in _shown(array.shape[0], limit)]
    return "[" + ("\n" + " " * (depth + 1)).join(rows) + "]"


def graph_text(array: np.ndarray) -> str:
    """How compiled code prints a tensor holding ``array`` (see the module docstring)."""
    array = np.asarray(array)
    if array.dtype == np.float32:  # read with subnormals flushed to zero
        array = np.where(np.abs(array) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), array), array)
    if array.ndim == 0:
        return scalar_text(array[()])
    head = f"Tensor(shape={list(array.shape)}, dtype={_dtype_name(array)}, value="
    if array.size == 0:
        return f"{head}[])"
    limit = FLAT_LIMIT if array.ndim == 1 else ROW_LIMIT
    per_line = PER_LINE.get(array.dtype.kind, 24)
    body = _block(array, _cell(array, limit), limit, per_line, 0)
    return f"{head}\n{body})" if array.ndim > 1 else f"{head}{body})"


def render(array: Any, style: str = "graph") -> str:
    """A printed tensor in ``style`` (``"graph"`` or ``"repr"``)."""
    array = np.asarray(array)
    return graph_text(array) if style == "graph" else tensor_repr(array, _dtype_name(array))


def write(template: str, arrays: Any, style: str = "graph") -> None:
    """Writes ``template`` filled with the printed ``arrays`` to stdout (the TVM backend's
    print calls this too)."""
    sys.stdout.write(template.format(*[render(a, style) for a in arrays]))
    sys.stdout.flush()


class PrintOp(Primitive, abstract=True):
    side_effect = True
    differentiable = False
    num_outputs = 0

    def __init__(self, template: str, style: str = "graph") -> None:
        super().__init__(template=template, style=style)

    def infer(self, *inputs: Any) -> tuple:
        return ()

    def kernel(self, *arrays: np.ndarray) -> tuple:
        write(self.template, arrays, self.style)
        return ()

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        return (None,) * len(inputs)


def _number_tuple(value: tuple | list) -> str | None:
    """``(1, 2)`` for a tuple of only ints, ``( 1.5e+00, ...)`` of only floats; else None."""
    if value and all(type(v) is int for v in value):
        return "(" + ", ".join(str(v) for v in value) + ")"
    if value and all(type(v) is float for v in value):
        return "(" + ", ".join(f"{v: .8e}" for v in value) + ")"
    return None


def print_items(args: Any, top: bool = True) -> list[Any]:
    """The lines compiled code prints for ``print(*args)``: text, or a Tensor (printed at
    run time); see the module docstring."""
    items: list[Any] = []
    for arg in args:
        if isinstance(arg, Tensor | str):
            items.append(arg)
        elif isinstance(arg, tuple | list):
            numbers = _number_tuple(arg) if top else None
            items.extend([numbers] if numbers else print_items(arg, top=False) if arg else ["()"])
        elif isinstance(arg, dict):
            items.extend(print_items(list(arg.values()), top=False))
        else:
            items.append(scalar_text(arg))
    return items


def runtime_print(items: list[Any], style: str = "graph") -> None:
    """A ``PrintOp`` writing ``items`` (strings and Tensors) one per line."""
    lines = ["{}" if isinstance(item, Tensor) else item.replace("{", "{{").replace("}", "}}")
             for item in items]
    if lines:
        PrintOp("\n".join(lines) + "\n", style)(*[item for item in items if isinstance(item, Tensor)])


class Print(NoAttributes):
    """``ops.Print()(*inputs)``: prints strings and tensors each on its own line when it
    runs: as compiled code's ``print`` does when traced, tensors as ``repr`` in PyNative."""

    def __call__(self, *inputs: Any) -> None:
        if is_tracing():
            runtime_print(print_items(inputs))
        else:
            runtime_print([x if isinstance(x, Tensor | str) else str(x) for x in inputs], "repr")


def print_(*input_x: Any) -> None:
    """MindSpore's functional ``ops.print_(*input_x)``: ``ops.Print()(*input_x)``."""
    Print()(*input_x)


class AssertOp(Primitive):
    """``AssertOp(summarize)(condition, *data)``: ``[0]`` (int32, MindSpore's answer) while
    the bool ``condition`` (one element) holds; when it fails, writes the first
    ``summarize`` entries of each ``data`` tensor and raises RuntimeError, at once in
    PyNative and in graph mode each time the compiled code reaches it (``side_effect``)."""

    side_effect = True
    differentiable = False

    def __init__(self, summarize: int = 3) -> None:
        super().__init__(summarize=summarize)

    def infer(self, condition: Any, *data: Any) -> Any:
        if condition.dtype != np.bool_ or int(np.prod(condition.shape)) != 1:
            raise TypeError(f"Assert: condition must be a bool tensor of one element, got {condition.dtype} "
                            f"of shape {tuple(condition.shape)}")
        return Spec((1,), np.dtype(np.int32))

    def kernel(self, condition: np.ndarray, *data: np.ndarray) -> np.ndarray:
        if not bool(np.asarray(condition).reshape(-1)[0]):
            shown = [np.asarray(d).reshape(-1)[: self.summarize] for d in data]
            sys.stdout.write("For 'Assert' condition is false.\n"
                             + "".join(f"input data: {d}\n" for d in shown))
            sys.stdout.flush()
            raise RuntimeError("Assert: the condition is false (input data: "
                               + ", ".join(str(d) for d in shown) + ")")
        return np.zeros((1,), np.int32)
