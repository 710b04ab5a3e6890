"""The Apache TVM (Relax) backend.

Importing this package fills ``Primitive.lower`` for every registered primitive
(see :mod:`framework.backend.tvm.lowering`).
"""

from . import lowering
from .lowering import LOWERINGS, spec_of

__all__ = ["LOWERINGS", "lowering", "spec_of"]
