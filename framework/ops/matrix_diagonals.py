"""Bands of diagonals of the last two axes: ``matrix_diag_part`` reads them, ``matrix_diag``
builds matrices from them (MindSpore's ``MatrixDiagV3`` / ``MatrixDiagPartV3``).

``k`` is one diagonal (0 the main one, > 0 above it, < 0 below) or a band ``(low, high)``;
a band's diagonals are stacked from ``high`` down to ``low``, each as long as the longest
(``max_len``) and padded with ``padding_value``. ``align`` (``'RIGHT_LEFT'`` ...) says where a
shorter diagonal sits: its first word for diagonals above the main one, its second for
those below; ``RIGHT`` pads on the left. Both read and write with ``Gather`` at positions
computed on the host (the padding value appended as one extra entry), so gradients and graph
mode are ``Gather``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._utils import argument_error
from .elementwise import cast
from .scatter_gather import gather
from .shape_ops import broadcast_to, concat, reshape

ALIGNS = ("LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _numbers(op: str, name: str, value: Any) -> np.ndarray:
    data = getattr(value, "_data", value)
    if not isinstance(data, np.ndarray | np.generic | int | float | list | tuple):
        raise argument_error(op, RuntimeError(f"{name} must have its values (a number, or a tensor "
                                              "outside graph mode): it decides the output's shape"))
    return np.asarray(data).reshape(-1)


def _band(op: str, k: Any) -> tuple[int, int, bool]:
    ks = _numbers(op, "k", k)
    if ks.size not in (1, 2) or ks.dtype.kind not in "iu" or ks[0] > ks[-1]:
        raise argument_error(op, ValueError(f"k must be an int or a pair low <= high, got {ks.tolist()}"))
    return int(ks[0]), int(ks[-1]), ks.size == 1


def _length(rows: int, cols: int, d: int) -> int:
    return max(min(rows + min(d, 0), cols - max(d, 0)), 0)


def _offset(align: str, d: int, length: int, max_len: int) -> int:
    """Where diagonal ``d``'s entries start in its padded row."""
    word = align.split("_")[0 if d >= 0 else 1]
    return max_len - length if word == "RIGHT" else 0


def _with_padding(op: str, x: Any, padding_value: Any, lead: tuple[int, ...], size: int) -> Any:
    """``x`` flattened to ``lead + (size,)`` with the padding value appended last."""
    pad = padding_value if isinstance(padding_value, Tensor) else Tensor(np.asarray(padding_value))
    if int(np.prod(pad.shape)) != 1:
        raise argument_error(op, ValueError(
            f"padding_value must be one number, got shape {tuple(pad.shape)}"))
    pad = broadcast_to(reshape(cast(pad, x.dtype), (1,) * (len(lead) + 1)), lead + (1,))
    return concat((reshape(x, lead + (size,)), pad), -1)


def _check_align(op: str, align: str) -> None:
    if align not in ALIGNS:
        raise argument_error(op, ValueError(f"align must be one of {ALIGNS}, got {align!r}"))


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals ``k`` of the last two axes of ``x`` (see the module docstring)."""
    _check_align("matrix_diag_part", align)
    if len(x.shape) < 2:
        raise argument_error("matrix_diag_part", ValueError(f"x must be at least 2-d, got {tuple(x.shape)}"))
    low, high, single = _band("matrix_diag_part", k)
    rows, cols = x.shape[-2:]
    if not (-rows < low and high < cols):
        raise argument_error("matrix_diag_part", ValueError(
            f"k ({low}, {high}) must lie within ({-rows}, {cols}) for {rows}x{cols} matrices"))
    diags = range(high, low - 1, -1)
    max_len = max(_length(rows, cols, d) for d in diags)
    where = np.full((len(diags), max_len), rows * cols, np.int64)  # the padding entry
    for row, d in enumerate(diags):
        n = _length(rows, cols, d)
        i = np.arange(n) + max(-d, 0)
        start = _offset(align, d, n, max_len)
        where[row, start:start + n] = i * cols + i + d
    lead = tuple(x.shape[:-2])
    out = gather(_with_padding("matrix_diag_part", x, padding_value, lead, rows * cols),
                 _tensor(where[0] if single else where), len(lead))
    return out


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices whose diagonals ``k`` are ``x``'s rows, ``padding_value`` elsewhere."""
    _check_align("matrix_diag", align)
    low, high, single = _band("matrix_diag", k)
    if not x.shape or (not single and (len(x.shape) < 2 or x.shape[-2] != high - low + 1)):
        raise argument_error("matrix_diag", ValueError(
            f"x of shape {tuple(x.shape)} must hold {high - low + 1} diagonals on its last axes"))
    max_len = x.shape[-1]
    rows, cols = (int(_numbers("matrix_diag", n, v)[0]) for n, v in (("num_rows", num_rows),
                                                                     ("num_cols", num_cols)))
    min_rows, min_cols = max_len - min(high, 0), max_len + max(low, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    rows, cols = (min_rows if rows == -1 else rows), (min_cols if cols == -1 else cols)
    if max(_length(rows, cols, d) for d in range(low, high + 1)) != max_len:
        raise argument_error("matrix_diag", ValueError(
            f"num_rows {rows} and num_cols {cols} do not give diagonals of length {max_len} for k "
            f"({low}, {high})"))
    lead = tuple(x.shape[:-1] if single else x.shape[:-2])
    count = 1 if single else high - low + 1
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    d = j - i
    inside = (d >= low) & (d <= high)
    lengths = np.maximum(np.minimum(rows + np.minimum(d, 0), cols - np.maximum(d, 0)), 0)
    upper, lower = (word == "RIGHT" for word in align.split("_"))
    offsets = np.where(np.where(d >= 0, upper, lower), max_len - lengths, 0)
    where = np.where(inside, (high - d) * max_len + np.minimum(i, j) + offsets, count * max_len)
    return gather(_with_padding("matrix_diag", x, padding_value, lead, count * max_len),
                  _tensor(where.astype(np.int64)), len(lead))


def _tensor(array: np.ndarray) -> Any:
    return Tensor(np.ascontiguousarray(array))
