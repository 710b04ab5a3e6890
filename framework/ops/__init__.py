"""``framework.ops``: primitive classes (``ops.Add()``) and functional forms (``ops.add``).

MindSpore's module paths are here too: ``ops.operations`` (``P``), ``ops.composite``
(``C``) and ``ops.functional`` (``F``).
"""

import sys as _sys
import types as _types

from ..autograd.grad import GradOperation, grad, value_and_grad
from ..autograd.hooks import HookBackward
from ..autograd.vmap import vmap
from ..tensor import Tensor as _Tensor
from . import composite, functional, operations, shape
from . import tensor_info as _tensor_info
from . import tensor_methods as _tensor_methods
from .complex_ops import *  # noqa: F403  (Complex, Real, ... real, imag, conj, angle)
from .complex_ops import __all__ as _complex_all
from .composite import HyperMap, Map, MultitypeFuncGraph
from .functional import *  # noqa: F403
from .functional import __all__ as _functional_all
from .operations import *  # noqa: F403
from .operations import __all__ as _operations_all


class _ShapeModule(_types.ModuleType):
    """``framework.ops.shape``, the module of the shape primitives, is also MindSpore's
    function ``ops.shape(x)`` (the shape as a tuple of ints) when called: one name, both
    uses (``from framework.ops.shape import Reshape`` and ``ops.shape(x)``)."""

    def __call__(self, input_x):
        return _tensor_info.shape(input_x)


shape.__class__ = _ShapeModule

_tensor_methods.install(_Tensor)  # every Tensor method and operator, attached here once

# MindSpore's ``F.grad`` / ``F.value_and_grad``: set here, above both autograd and the
# functional module (which sits below autograd and never imports it)
functional.grad, functional.value_and_grad, functional.vmap = grad, value_and_grad, vmap

__all__ = ["GradOperation", "HookBackward", "HyperMap", "Map", "MultitypeFuncGraph", "composite",
           "functional", "grad", "operations", "shape", "value_and_grad", "vmap", *_functional_all,
           *_operations_all, *_complex_all]

# the P.* classes of operations/prim_*.py find this package here (they never import it)
operations._namespaces.INSTALLED["ops"] = _sys.modules[__name__]

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from .. import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("ops", __name__)
