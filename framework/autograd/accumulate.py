"""Where the reverse sweep (backward.py) sums the cotangents of a tensor used several times.

:class:`GradStore` (both modes) keeps ``id(tensor) -> cotangent`` and sums a second
contribution with ``F.add``, so that graph mode records the sum as a node. A
:class:`Slice` record's cotangent is its ``bprop``'s: the output cotangent zero-padded to
the input's shape.

:class:`EagerGradStore` (PyNative: the sweep runs with no tape recording, so nothing
needs the intermediate sums as tensors) gives the same values with less work:

- a sum it computed itself is a fresh array that nothing else references ("owned"), so
  later contributions are added into it in place (``np.add(..., out=)``): a weight used at
  every step of a recurrent loop gets one buffer, not one per step;
- a Slice's cotangent is written into the input's owned buffer at the slice's block
  (a fresh zero buffer, or a copy of a cotangent it does not own), instead of a padded
  full-size array and a full-size add per slice: an LSTM slices its gate block four ways
  and its time-major input once per step.

A buffer stops being owned when it leaves the store (``pop``: it becomes some bprop's
``dout``, which a bprop may hand on as is to several inputs). The values are the ones
F.add would give (same dtype and shape only; anything else goes through F.add), except
that ``-0.0 + 0.0`` outside a slice's block stays ``-0.0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class GradStore:
    """Cotangents by tensor id, summed with framework ops (``F`` is ops.functional)."""

    def __init__(self, F: Any) -> None:
        self.F = F
        self.grads: dict[int, Any] = {}

    def add(self, tensor: Any, grad: Any) -> None:
        key = id(tensor)
        previous = self.grads.get(key)
        self.grads[key] = grad if previous is None else self.F.add(previous, grad)

    def pop(self, tensor: Any) -> Any:
        return self.grads.pop(id(tensor), None)

    def add_slice(self, prim: Any, inputs: tuple, dout: Any, needs: tuple) -> bool:
        """Handle a record here instead of through its bprop; False: not handled."""
        return False


class EagerGradStore(GradStore):
    """PyNative's store: in-place sums into buffers it owns (see the module docstring)."""

    def __init__(self, F: Any) -> None:
        super().__init__(F)
        self.owned: set[int] = set()  # ids of the stored tensors this store allocated
        from ..common.tensor import Tensor
        from ..ops.shape_ops import Slice

        self._slice, self._wrap = Slice, Tensor._wrap

    def add(self, tensor: Any, grad: Any) -> None:
        key = id(tensor)
        previous = self.grads.get(key)
        if previous is None:
            self.grads[key] = grad
            return
        prev, new = previous._data, grad._data
        same = (type(prev) is np.ndarray and type(new) is np.ndarray and prev.shape == new.shape
                and prev.dtype == new.dtype)
        if same and id(previous) in self.owned:
            np.add(prev, new, out=prev)
            return
        self.owned.discard(id(previous))
        total = self.F.add(previous, grad)  # a fresh array: owned when nothing could alias it
        self.grads[key] = total
        if same:
            self.owned.add(id(total))

    def pop(self, tensor: Any) -> Any:
        grad = self.grads.pop(id(tensor), None)
        if grad is not None:
            self.owned.discard(id(grad))
        return grad

    def add_slice(self, prim: Any, inputs: tuple, dout: Any, needs: tuple) -> bool:
        if type(prim) is not self._slice or not needs[0] or type(dout._data) is not np.ndarray:
            return False
        (x,) = inputs
        block = tuple(slice(b, b + s) for b, s in zip(prim.begin, prim.size))
        part = dout._data
        key = id(x)
        previous = self.grads.get(key)
        if previous is None:  # what Pad gives: zeros in dout's dtype, dout at the block
            buffer = np.zeros(x.shape, part.dtype)
            buffer[block] = part
        elif previous._data.dtype != part.dtype or previous._data.shape != tuple(x.shape):
            return False  # mixed dtypes: F.add's promotion rules, through the bprop
        elif id(previous) in self.owned:
            target = previous._data[block]
            np.add(target, part, out=target)
            return True
        else:
            buffer = np.array(previous._data, copy=True)
            target = buffer[block]
            np.add(target, part, out=target)
        total = self._wrap(buffer)
        self.grads[key] = total
        self.owned.add(id(total))
        return True
