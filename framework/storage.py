"""MindSpore's ``UntypedStorage``: a tensor's memory as bytes (``Tensor.untyped_storage()``).

Contract (as MindSpore 2.10 behaves on CPU):

- ``x.untyped_storage()`` returns the same object for one tensor each time; the class cannot be
  built directly (TypeError). A view that shares the tensor's memory (a NumPy view of it) has
  the same storage bytes: the same ``data_ptr()`` and ``nbytes()``.
- ``nbytes()`` / ``size()`` / ``len()``: the bytes of the memory, ``element_size()`` 1 (its
  elements are bytes), ``dtype`` the tensor's dtype, ``device`` ``"CPU"``, ``is_shared()`` False,
  ``data_ptr()`` the address of its first byte.
- ``copy_(src)``: another storage's bytes written into this one, which the tensor then reads;
  sizes must agree (RuntimeError naming both).
- ``resize_(n)``: the storage now holds ``n`` bytes (the first ones kept, the rest zeros), apart
  from the tensor, whose values stay as they were (MindSpore's tensor keeps its shape and
  values too). A negative ``n`` is a ValueError.
- A placeholder Tensor (``Tensor(shape=[None], ...)``) has 0 bytes.
- Indexing is not implemented (RuntimeError, as MindSpore's).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from . import dtype as mstype
from ._memory import owning_block
from .placeholder import Placeholder

# id(tensor) -> its storage while the storage lives (the storage holds the tensor, so the id
# cannot be reused meanwhile); Tensor has slots, no attribute to keep it in
_STORAGES: weakref.WeakValueDictionary[int, UntypedStorage] = weakref.WeakValueDictionary()


class UntypedStorage:
    """A tensor's memory as bytes (see the module docstring)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> UntypedStorage:
        raise TypeError("cannot create 'UntypedStorage' instances: use Tensor.untyped_storage()")

    @classmethod
    def _of(cls, tensor: Any) -> UntypedStorage:
        storage = object.__new__(cls)
        storage._tensor = tensor
        storage._detached = None  # the bytes after resize_, apart from the tensor
        return storage

    def _bytes(self) -> np.ndarray:
        if self._detached is not None:
            return self._detached
        if isinstance(self._tensor._data, Placeholder):  # no values: no bytes, as MindSpore's
            return np.zeros(0, np.uint8)
        return owning_block(self._tensor._concrete("untyped_storage()"))

    @property
    def dtype(self) -> Any:
        return mstype.from_numpy(self._tensor._data.dtype)

    @property
    def device(self) -> str:
        return "CPU"

    def nbytes(self) -> int:
        return int(self._bytes().size)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def is_shared(self) -> bool:
        return False

    def data_ptr(self) -> int:
        return int(self._bytes().ctypes.data)

    def copy_(self, src: UntypedStorage, non_blocking: bool = False) -> UntypedStorage:
        if not isinstance(src, UntypedStorage):
            raise TypeError(f"UntypedStorage.copy_: src must be an UntypedStorage, got {type(src).__name__}")
        ours, theirs = self._bytes(), src._bytes()
        if ours.size != theirs.size:
            raise RuntimeError(f"UntypedStorage.copy_: size does not match, self was {ours.size} bytes "
                               f"but src was {theirs.size} bytes")
        ours[...] = theirs
        return self

    def resize_(self, size: int) -> UntypedStorage:
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
            raise ValueError(f"UntypedStorage.resize_: size must be a non-negative int, got {size!r}")
        old = self._bytes()
        new = np.zeros(int(size), np.uint8)
        keep = min(old.size, new.size)
        new[:keep] = old[:keep]
        self._detached = new
        return self

    def __getitem__(self, index: Any) -> Any:
        raise RuntimeError("The function __getitem__ is not implemented for Storage!")


def untyped_storage(self: Any) -> UntypedStorage:
    """``Tensor.untyped_storage()``: the tensor's memory as bytes (one object per tensor)."""
    storage = _STORAGES.get(id(self))
    if storage is None:
        storage = UntypedStorage._of(self)
        _STORAGES[id(self)] = storage
    return storage
