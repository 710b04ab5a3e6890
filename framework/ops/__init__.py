"""``framework.ops``: primitive classes (``ops.Add()``) and functional forms (``ops.add``).

MindSpore's module paths are here too: ``ops.operations`` (``P``), ``ops.composite``
(``C``) and ``ops.functional`` (``F``).
"""

from ..autograd.grad import GradOperation, grad, value_and_grad
from . import composite, functional, operations
from .functional import *  # noqa: F403
from .functional import __all__ as _functional_all
from .operations import *  # noqa: F403
from .operations import __all__ as _operations_all

# MindSpore's ``F.grad`` / ``F.value_and_grad``: set here, above both autograd and the
# functional module (which sits below autograd and never imports it)
functional.grad, functional.value_and_grad = grad, value_and_grad

__all__ = ["GradOperation", "composite", "functional", "grad", "operations", "value_and_grad",
           *_functional_all, *_operations_all]
