"""MindSpore's device-memory hints: ``recompute`` (recompute a block's activations in the
backward pass instead of keeping them) and ``ms_memory_recycle`` (free the runtime's cached
device memory). They trade memory for time and never change a result; here tensors live in
host NumPy memory that Python frees, so they run the block and collect garbage."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any


def recompute(block: Callable[..., Any], *args: Any, use_reentrant: bool = True,
              output_recompute: bool = False, early_stop: bool = True, context_fn: Any = None,
              **kwargs: Any) -> Any:
    """``block(*args, **kwargs)``: its value and gradients are those of the block itself
    (MindSpore recomputes its activations in the backward pass to save memory)."""
    if not callable(block):
        raise TypeError(f"recompute: block must be a Cell or a function, got {type(block).__name__}")
    return block(*args, **kwargs)


def ms_memory_recycle() -> None:
    """Free memory no longer used (Python's garbage collection of unreferenced tensors)."""
    gc.collect()
