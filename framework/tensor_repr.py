"""``repr(Tensor)`` as MindSpore 2.10 writes it (``str(Tensor)`` stays NumPy's ``str``).

Contract (read off MindSpore 2.10's output, checked against it in
``tests/mindspore_ref/test_ms_tutorial_gaps.py``)::

    Tensor(shape=[2, 3], dtype=Float32, value=
    [[ 3.26189250e-01,  1.58914644e-02,  4.21645455e-02],
     [ 3.26189250e-01,  1.58914644e-02,  4.21645455e-02]])
    Tensor(shape=[3], dtype=Int32, value= [1, 2, 3])
    Tensor(shape=[], dtype=Float32, value= 3.5)

- ``value=`` is followed by a newline for 2-d and higher tensors, by a space otherwise;
  a 0-d tensor shows its float as ``%g`` (C++'s default stream
  format: ``2``, ``3.5``, ``1e-07``), other scalars as ``str``; an empty tensor shows nothing.
- Elements: floats as ``% .8e`` (``% .4e`` for 16-bit floats), integers and bools as
  ``str``; all right-aligned to the widest element shown (``nan``/``inf`` too), separated
  by ``", "``. Complex elements (and 0-d complex tensors) are ``%g%+gj`` of their real and
  imaginary parts (``1+2j``, ``0.333333-1e+08j``, ``nan+infj``), not aligned; bools are
  always 5 wide (``[ True,  True]``).
- In a 2-d or higher tensor every dimension longer than 6 shows its first and last 3
  entries around ``...`` (`` ... `` inside a row, a ``...`` line between rows); nested rows
  are separated by ``",\\n"`` plus one space per depth (no blank lines). A 1-d tensor is
  summarised only above 1000 elements, and wraps after every 12 floats or 24 other elements (``", \\n "``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

EDGE = 3
ROW_LIMIT = 6
FLAT_LIMIT = 1000
PER_LINE = {"f": 12}  # elements per line of a 1-d tensor by dtype kind; others 24


def _complex_text(value: Any) -> str:
    return f"{value.real:g}{value.imag:+g}j"


def _element_text(array: np.ndarray) -> Any:
    if array.dtype.kind == "c":
        return _complex_text
    if array.dtype.kind == "f":
        digits = 4 if array.dtype.itemsize <= 2 else 8
        return lambda v: f"{float(v): .{digits}e}" if np.isfinite(v) else str(float(v))
    if array.dtype.kind == "b":
        return lambda v: str(bool(v))
    return lambda v: str(int(v))


def _shown_indices(length: int, limit: int) -> list[int | None]:
    """The indices shown along a dimension; None marks the ``...``."""
    if length <= limit:
        return list(range(length))
    return [*range(EDGE), None, *range(length - EDGE, length)]


def _shown_values(array: np.ndarray, limit: int) -> list[Any]:
    """Every element that is shown (to size the columns)."""
    if array.ndim == 0:
        return [array.item()]
    values: list[Any] = []
    for i in _shown_indices(array.shape[0], limit):
        if i is not None:
            values.extend(_shown_values(array[i], limit))
    return values


def _row(array: np.ndarray, cell: Any, limit: int, depth: int) -> str:
    per_line = PER_LINE.get(array.dtype.kind, 24)
    if array.ndim == 1:
        parts = [" ..." if i is None else cell(array[i])
                 for i in _shown_indices(array.shape[0], limit)]
        text = ""
        for k, part in enumerate(parts):
            if k and part != " ..." and parts[k - 1] != " ...":
                text += ", \n " if depth == 0 and k % per_line == 0 else ", "
            elif k and part != " ...":
                text += " "
            text += part
        return f"[{text}]"
    pad = " " * (depth + 1)
    rows = ["..." if i is None else _row(array[i], cell, limit, depth + 1)
            for i in _shown_indices(array.shape[0], limit)]
    return "[" + f",\n{pad}".join(rows).replace(f"...,\n{pad}", f"...\n{pad}") + "]"


def tensor_repr(array: np.ndarray, dtype_name: str) -> str:
    """MindSpore's ``repr`` of a tensor holding ``array`` (see the module docstring)."""
    head = f"Tensor(shape={list(array.shape)}, dtype={dtype_name}, value="
    if array.ndim == 0:
        value = array[()]
        kind = array.dtype.kind
        shown = f"{float(value):g}" if kind == "f" else _complex_text(value) if kind == "c" else str(value)
        return f"{head} {shown})"
    if array.size == 0:
        return f"{head}\n)" if array.ndim > 1 else f"{head} )"
    limit = ROW_LIMIT if array.ndim > 1 else FLAT_LIMIT
    text = _element_text(array)
    width = {"c": 0, "b": 5}.get(array.dtype.kind)  # bools: as wide as False
    if width is None:
        width = max(len(text(v)) for v in _shown_values(array, limit))
    body = _row(array, lambda v: text(v).rjust(width), limit, 0)
    return f"{head}\n{body})" if array.ndim > 1 else f"{head} {body})"
