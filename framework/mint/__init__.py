"""``mindspore.mint``: MindSpore 2.10's PyTorch-style API (``mint.*`` functions,
``mint.nn`` Cells, ``mint.nn.functional``, ``mint.optim``, ``mint.special``,
``mint.linalg``) mapped onto ``framework.ops`` and ``framework.nn``, in both modes.

Signatures and semantics are mint's, not ``ops``': ``dim``/``keepdim`` keywords,
int64 indices and integer sums, ``mint.max(input, dim)`` returning ``(values, indices)``,
``mint.select(input, dim, index)``, torch-like defaults. Each module's docstring states
its contracts: :mod:`.math` (element-wise), :mod:`.reduce` (reductions, scans, sorts),
:mod:`.shape` (shape, join/split, indexing), :mod:`.products` (matrix products),
:mod:`.creation` (creation, random). A few functions whose output shape depends on
values (``nonzero``, ``masked_select``, ``unique_consecutive``) or that return Python
values (``equal``, ``allclose``) need concrete tensors: PyNative only, one line in graph
mode. ``item`` is ``Tensor.item``: graph mode runs its function interpreted (JIT Fallback).
"""

from __future__ import annotations

import importlib as _importlib

from . import linalg  # noqa: F401  (mint.linalg)
from .creation import *  # noqa: F403  (each module lists its names in __all__)
from .creation import __all__ as _creation_names
from .math import *  # noqa: F403
from .math import __all__ as _math_names
from .products import *  # noqa: F403
from .products import __all__ as _product_names
from .reduce import *  # noqa: F403
from .reduce import __all__ as _reduce_names
from .reduce import softmax  # noqa: F401
from .shape import *  # noqa: F403
from .shape import __all__ as _shape_names


def item(input):  # noqa: A002
    """The value of a one-element tensor as a Python number (``Tensor.item``: in graph
    mode, the function runs interpreted, JIT Fallback, as MindSpore's does)."""
    return input.item()


__all__ = sorted({*_creation_names, *_math_names, *_product_names, *_reduce_names, *_shape_names,
                  "softmax", "item", "nn", "optim", "special", "linalg"})


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """``mint.conv2d``: ``mint.nn.functional.conv2d``."""
    functional = _importlib.import_module(".nn.functional", __name__)
    return functional.conv2d(input, weight, bias, stride, padding, dilation, groups)


inverse = linalg.inv
__all__ += ["conv2d", "inverse"]

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from .. import absent_names as _absent_names  # noqa: E402

_absent = _absent_names.module_getattr("mint", __name__)
# mint.nn, mint.optim and mint.special are Cells, optimizers and aliases over framework.nn:
# imported on first use, so that mint's functions (which the P.* classes of
# framework.ops.operations are written with) import without framework.nn
_SUBPACKAGES = ("nn", "optim", "special")


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return _importlib.import_module(f".{name}", __name__)
    return _absent(name)
