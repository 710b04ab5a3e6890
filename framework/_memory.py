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
