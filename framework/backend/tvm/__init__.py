"""The Apache TVM (Relax) backend.

Lowerings live in a table of this backend, primitive class -> ``lower(ctx, *args)``
(see :mod:`framework.backend.tvm.lowerings`).
"""

from . import lowerings
from .lowerings import LOWERINGS, LowerContext, lowering_for, spec_of

__all__ = ["LOWERINGS", "LowerContext", "lowering_for", "lowerings", "spec_of"]
