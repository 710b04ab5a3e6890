"""MindSpore's view primitives (``ops.auto_generate``: ``P.TransposeView``, ``P.NarrowView``,
``P.SelectExtView``, ``P.View``...) as callables with their call signatures.

Contract: each returns the same values as MindSpore's view. Here a view is a new tensor
(tensors are values in both modes), so an in-place write through it does not reach the
tensor it came from; ``ops.assign`` on it, then reading it, works as in MindSpore.
"""

from __future__ import annotations

from typing import Any

from . import functional as F
from ._class_form import NoAttributes
from ._utils import argument_error, one_dim


class _View(NoAttributes):
    """A stateless primitive-like callable (``P.TransposeView()(x, perm)``)."""

    def __repr__(self) -> str:
        return f"Prim[{type(self).__name__}]"


class TransposeView(_View):
    def __call__(self, input: Any, input_perm: Any) -> Any:  # noqa: A002
        from .shape_ops import transpose

        return transpose(input, tuple(int(p) for p in input_perm))


class TransposeExtView(_View):
    def __call__(self, input: Any, dim0: int, dim1: int) -> Any:  # noqa: A002
        return _transpose(input, dim0, dim1)


class View(_View):
    def __call__(self, input: Any, shape: Any) -> Any:  # noqa: A002
        from .shape_ops import reshape

        return reshape(input, tuple(shape))


class NarrowView(_View):
    def __call__(self, input: Any, dim: int, start: int, length: int) -> Any:  # noqa: A002
        return _narrow(input, dim, start, length)


class SelectExtView(_View):
    def __call__(self, input: Any, dim: int, index: int) -> Any:  # noqa: A002
        return _select(input, dim, index)


class ExpandDimsView(_View):
    def __call__(self, input: Any, dim: int) -> Any:  # noqa: A002
        from .shape_ops import expand_dims

        return expand_dims(input, dim)


class BroadcastToView(_View):
    def __call__(self, input: Any, shape: Any) -> Any:  # noqa: A002
        from .shape_ops import broadcast_to

        return broadcast_to(input, tuple(shape))


class ChunkView(_View):
    def __call__(self, input: Any, chunks: int, dim: int = 0) -> Any:  # noqa: A002
        return _chunk(input, chunks, dim)


class SplitTensorView(_View):
    def __call__(self, input: Any, split_size: Any, dim: int = 0) -> Any:  # noqa: A002
        return _split(input, split_size, dim)


SplitWithSizeView = SplitTensorView


class UnstackExtView(_View):
    def __call__(self, input: Any, dim: int = 0) -> Any:  # noqa: A002
        return _unbind(input, dim)


# mint's view semantics (torch-style ``dim`` arguments), on the functional ops
def _transpose(x: Any, dim0: int, dim1: int) -> Any:
    return F.swapaxes(x, one_dim("transpose", dim0, x.ndim), one_dim("transpose", dim1, x.ndim))


def _narrow(x: Any, dim: int, start: int, length: int) -> Any:
    return F.narrow(x, one_dim("narrow", dim, x.ndim), int(start), int(length))


def _select(x: Any, dim: int, index: int) -> Any:
    axis = one_dim("select", dim, x.ndim)
    size = x.shape[axis]
    if not -size <= int(index) < size:
        raise argument_error("select", IndexError(f"index {index} is out of range for size {size}"))
    return F.squeeze(F.narrow(x, axis, int(index) % size, 1), axis)


def _chunk(x: Any, chunks: int, dim: int = 0) -> Any:
    return F.chunk(x, chunks, one_dim("chunk", dim, x.ndim))


def _split(x: Any, split_size: Any, dim: int = 0) -> Any:
    return F.split(x, split_size, one_dim("split", dim, x.ndim))


def _unbind(x: Any, dim: int = 0) -> Any:
    return F.unbind(x, one_dim("unbind", dim, x.ndim))


__all__ = ["BroadcastToView", "ChunkView", "ExpandDimsView", "NarrowView", "SelectExtView",
           "SplitTensorView", "SplitWithSizeView", "TransposeExtView", "TransposeView",
           "UnstackExtView", "View"]
