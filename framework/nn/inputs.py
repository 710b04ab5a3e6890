"""``Cell.set_inputs``'s check of a graph-mode call against its input signature (Tensors,
placeholders among them: :mod:`framework.placeholder`).

Contract: :func:`check_inputs` wants as many arguments as the signature holds (TypeError),
each Tensor of the signature's dtype (TypeError), its rank and known dimensions
(ValueError); a non-Tensor signature entry takes no Tensor (TypeError). PyNative calls are
not checked (MindSpore's PyNative ignores set_inputs). A placeholder's Symbol dimensions are
checked by :func:`framework.symbol.check_dim` (a unique Symbol across the whole call).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..common.tensor import Tensor
from ..placeholder import DYNAMIC_RANK, Placeholder
from ..symbol import check_dim


def _check_one(i: int, expected: Any, given: Any, seen: dict[int, int]) -> None:
    n = i + 1
    if not isinstance(expected, Tensor):
        if isinstance(given, Tensor):
            raise TypeError(f"set_inputs: input {n} is declared {expected!r}, not a Tensor, but got "
                            f"a Tensor of shape {given.shape}")
        return
    if not isinstance(given, Tensor):
        raise TypeError(f"set_inputs: input {n} must be a Tensor {expected!r}, got "
                        f"{type(given).__name__}")
    if given.dtype != expected.dtype:
        raise TypeError(f"set_inputs: input {n} must be a {expected.dtype} Tensor, got {given.dtype}")
    want = expected.shape
    if want == (DYNAMIC_RANK,):
        return
    if len(given.shape) != len(want):
        raise ValueError(f"set_inputs: input {n} must have {len(want)} dimensions {list(want)}, got "
                         f"shape {given.shape}")
    for axis, (w, g) in enumerate(zip(want, given.shape)):
        if w >= 0 and w != g:
            raise ValueError(f"set_inputs: input {n} must have size {w} on axis {axis} "
                             f"(declared {list(want)}), got shape {given.shape}")
    data = getattr(expected, "_data", None)
    for axis, symbol in (data.symbols.items() if isinstance(data, Placeholder) else ()):
        check_dim(symbol, int(given.shape[axis]), f"set_inputs: input {n}'s axis {axis} (shape "
                  f"{list(given.shape)})", seen)


def check_inputs(signature: Sequence[Any], args: Sequence[Any], where: str) -> None:
    """``args`` of a graph-mode call against a ``set_inputs`` signature (see the module
    docstring); ``where`` names the Cell."""
    if len(args) != len(signature):
        raise TypeError(f"{where}: set_inputs declared {len(signature)} inputs, but the call gives "
                        f"{len(args)}")
    seen: dict[int, int] = {}
    for i, (expected, given) in enumerate(zip(signature, args)):
        _check_one(i, expected, given, seen)
