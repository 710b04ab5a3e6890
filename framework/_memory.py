"""Host buffers that the compiled graph can borrow instead of copying.

TVM's CPU kernels assume their buffers start on a 64-byte boundary; NumPy only promises
16. A Tensor's own copy of its data is made on that boundary, so that graph mode can hand
it to the kernels through DLPack as it is (backend/tvm/compiler.py).
"""

from __future__ import annotations

import numpy as np

ALIGNMENT = 64  # bytes: what TVM assumes of the buffers its kernels are given


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """A C-contiguous, 64-byte aligned copy of ``array``."""
    raw = np.empty(array.nbytes + ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    out = raw[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def owning_block(array: np.ndarray) -> np.ndarray:
    """The whole memory ``array`` is a view of, as bytes: its owner's, or for an
    :func:`aligned_copy` (a view of a padded byte buffer) the aligned block of that copy."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner is array:
        return np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    if owner.dtype == np.uint8 and owner.ndim == 1 and owner.size >= ALIGNMENT:
        start = -owner.ctypes.data % ALIGNMENT
        return owner[start:start + owner.size - ALIGNMENT]
    return np.ascontiguousarray(owner).reshape(-1).view(np.uint8)
