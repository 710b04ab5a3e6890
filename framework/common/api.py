"""``mindspore.common.api``: ``jit``, ``ms_function`` and ``jit_class`` under MindSpore's
module path (``from mindspore.common.api import jit``)."""

from ..jit_api import jit, jit_class, ms_function

__all__ = ["jit", "jit_class", "ms_function"]
