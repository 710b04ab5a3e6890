"""``auto_mixed_precision(network, amp_level, dtype)``: which cells run in low precision.

MindSpore's levels (``mindspore.amp.auto_mixed_precision``), with ``dtype`` ``ms.float16``
(default) or ``ms.bfloat16``:

- ``O0``: nothing changes.
- ``O1``: the white-list cells (``get_white_list()``: ``nn.Conv2d``, ``nn.Dense``, the RNN
  cells, and ``nn.ReLU`` for MindSpore's ``P.ReLU``) compute in ``dtype``: inputs and
  weights cast in, outputs cast back to float32. So do the white-list *primitives* a cell
  holds and calls in its construct (``self.matmul = ops.MatMul()``; ``P.MatMul``,
  ``P.BatchMatMul``, ``P.Conv2D``, ``P.Conv2DBackpropInput``, ``P.ReLU``): the attribute is
  replaced by a cell that casts float inputs to ``dtype`` and the outputs back to float32
  (:class:`_PrimitiveIn`). Functional calls (``ops.matmul(x, w)``) stay float32, as in
  MindSpore, whose O1 rewrites calls of primitive *instances* only. Cells the user set with
  ``to_float`` keep their precision. Everything else stays float32.
- ``O2``: the whole network computes in ``dtype`` except the black-list cells
  (``get_black_list()``: BatchNorm, LayerNorm), which run in float32 between casts; the
  network's outputs are cast to float32 (so the loss is computed in float32).
- ``O3``: everything in ``dtype``; outputs cast to float32.

Weights stay float32 Parameters throughout (``Cell.to_float`` casts them where they are
read: float32 master weights, the optimizer updates float32 values). The network is
converted in place (cells inside are wrapped) and the returned cell (for O2/O3 a wrapper
casting the outputs) is what to train. Parameter names do not change.
"""

from __future__ import annotations

import logging
from typing import Any

from .. import dtype as mstype
from .. import nn, ops
from ..ops import operations as P

log = logging.getLogger(__name__)

LEVELS = ("O0", "O1", "O2", "O3")


def get_white_list() -> list[type]:
    """The cells and primitives O1 converts (a copy)."""
    return [nn.Conv2d, nn.Dense, nn.LSTMCell, nn.RNNCell, nn.GRUCell, nn.ReLU,
            P.Conv2D, P.Conv2DBackpropInput, P.MatMul, P.BatchMatMul, P.ReLU]


def get_black_list() -> list[type]:
    """The cells O2 keeps in float32 (a copy)."""
    return [nn.BatchNorm1d, nn.BatchNorm2d, nn.SyncBatchNorm, nn.LayerNorm]


def cast_floats(value: Any, dtype: Any) -> Any:
    """``value`` (a Tensor or nested tuples/lists of them) with float tensors cast to ``dtype``
    (MindSpore's ``F.mixed_precision_cast``)."""
    if isinstance(value, tuple | list):
        return type(value)(cast_floats(v, dtype) for v in value)
    if hasattr(value, "dtype") and value.dtype.is_floating and value.dtype != dtype:
        return ops.cast(value, dtype)
    return value


class _OutputTo32(nn.Cell):
    """The backbone with its float outputs cast to float32."""

    def __init__(self, backbone: nn.Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return cast_floats(self._backbone(*args, **kwargs), mstype.float32)


class _OutputTo16(nn.Cell):
    """The backbone (a float32 cell) with its float outputs cast back to the low dtype."""

    def __init__(self, backbone: nn.Cell, dtype: Any = mstype.float16) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args, **kwargs):
        return cast_floats(self._backbone(*args, **kwargs), self.dtype)


def user_cell(cell: nn.Cell) -> nn.Cell:
    """The user's cell inside the cast wrappers of O1/O2/O3 (the float32 outputs, O2's
    float32 BatchNorm), or ``cell`` itself: what a model summary shows in its place."""
    while isinstance(cell, _OutputTo32 | _OutputTo16):
        cell = cell._backbone
    return cell


class _PrimitiveIn(nn.Cell):
    """A white-list primitive computing in ``dtype``: its float inputs cast to ``dtype``, its
    float outputs cast back to float32 (MindSpore's O1 cast pair around the call)."""

    def __init__(self, primitive: Any, dtype: Any) -> None:
        super().__init__(auto_prefix=False)
        self.primitive = primitive
        self.dtype = dtype

    def construct(self, *args):
        return cast_floats(self.primitive(*cast_floats(args, self.dtype)), mstype.float32)


def _replace(parent: nn.Cell, name: str, cell: nn.Cell) -> None:
    """``parent.<name> = cell`` without renaming the parameters (they keep their names)."""
    parent._cells[name] = cell
    object.__setattr__(parent, name, cell)


def check_dtype(dtype: Any, where: str = "auto_mixed_precision") -> Any:
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"{where}: dtype must be ms.float16 or ms.bfloat16, got {dtype!r}")
    return dtype


def check_level(amp_level: Any, where: str = "auto_mixed_precision") -> str:
    if amp_level not in LEVELS:
        hint = " ('auto' is not supported here)" if amp_level == "auto" else ""
        raise ValueError(f"{where}: amp_level must be one of {', '.join(LEVELS)}, got {amp_level!r}{hint}")
    return amp_level


def keep_float32(network: nn.Cell, cells: tuple[type, ...], dtype: Any) -> bool:
    """Every cell of the types ``cells`` inside ``network`` set to float32 and wrapped to hand
    ``dtype`` on (MindSpore's ``_do_keep_batchnorm_fp32``); whether any was found."""
    changed = False
    for name, sub in list(network._cells.items()):
        if isinstance(sub, cells):
            _replace(network, name, _OutputTo16(sub.to_float(mstype.float32), dtype))
            changed = True
        elif not isinstance(sub, _OutputTo16):
            changed = keep_float32(sub, cells, dtype) or changed
    return changed


def _white_list_cells(network: nn.Cell, cells: tuple[type, ...], dtype: Any) -> None:
    for name, sub in list(network._cells.items()):
        if isinstance(sub, cells):
            _replace(network, name, _OutputTo32(sub.to_float(dtype)))
        elif not isinstance(sub, _OutputTo32):
            _white_list_cells(sub, cells, dtype)


def _white_list_primitives(network: nn.Cell, prims: tuple[type, ...], dtype: Any) -> None:
    """Each white-list primitive a cell of ``network`` holds as an attribute, wrapped to
    compute in ``dtype``; not inside converted cells nor cells the user set with ``to_float``."""
    if isinstance(network, _OutputTo32 | _PrimitiveIn) or "_float_dtype" in network.__dict__:
        return
    for name, value in list(vars(network).items()):
        if isinstance(value, prims):
            object.__setattr__(network, name, _PrimitiveIn(value, dtype))
    for sub in network._cells.values():
        _white_list_primitives(sub, prims, dtype)


def auto_mixed_precision(network: nn.Cell, amp_level: str = "O0", dtype: Any = mstype.float16) -> nn.Cell:
    """``auto_mixed_precision(network, amp_level='O0', dtype=ms.float16)``: the network to
    train (see the module doc for the levels)."""
    if not isinstance(network, nn.Cell):
        raise TypeError(f"auto_mixed_precision: network must be an nn.Cell, got {type(network).__name__}")
    check_dtype(dtype)
    check_level(amp_level)
    if amp_level == "O0":
        return network
    if getattr(network, "_amp_level", "O0") != "O0":
        log.warning("the network's mixed-precision level changes from %s to %s; converting twice "
                    "casts twice", network._amp_level, amp_level)
    if amp_level == "O1":
        white = get_white_list()
        cells = tuple(c for c in white if isinstance(c, type) and issubclass(c, nn.Cell))
        if isinstance(network, cells):
            network = _OutputTo32(network.to_float(dtype))
        else:
            _white_list_cells(network, cells, dtype)
            _white_list_primitives(network, tuple(c for c in white if c not in cells), dtype)
    elif amp_level == "O2":
        network.to_float(dtype)
        keep_float32(network, tuple(get_black_list()), dtype)
        network = _OutputTo32(network)
    else:
        network.to_float(dtype)
        network = _OutputTo32(network)
    object.__setattr__(network, "_amp_level", amp_level)
    return network
