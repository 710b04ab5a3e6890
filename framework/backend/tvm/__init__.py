"""The Apache TVM (Relax) backend.

Lowerings live in a table of this backend, primitive class -> ``lower(ctx, *args)``
(see :mod:`framework.backend.tvm.lower.lowerings`).
"""

from .runtime import threads

threads.configure()  # before TVM's thread pool starts (at the first kernel it runs)

from .lower import lowerings  # noqa: E402
from .lower.lowerings import LOWERINGS, LowerContext, lowering_for, spec_of  # noqa: E402

__all__ = ["LOWERINGS", "LowerContext", "lowering_for", "lowerings", "spec_of"]
