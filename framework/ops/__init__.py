"""``framework.ops``: primitive classes (``ops.Add()``) and functional forms (``ops.add``).

MindSpore's module paths are here too: ``ops.operations`` (``P``), ``ops.composite``
(``C``) and ``ops.functional`` (``F``).
"""


from ..autograd.grad import GradOperation
from ..autograd.hooks import HookBackward
from ..common.tensor import Tensor as _Tensor
from . import composite, functional, operations
from . import tensor_methods as _tensor_methods
from .complex_ops import *  # noqa: F403  (Complex, Real, ... real, imag, conj, angle)
from .complex_ops import __all__ as _complex_all
from .composite import HyperMap, Map, MultitypeFuncGraph
from .functional import *  # noqa: F403
from .functional import __all__ as _functional_all
from .functional import shape  # MindSpore's ops.shape(x); the shape primitives live in shape_ops
from .operations import *  # noqa: F403
from .operations import __all__ as _operations_all

_tensor_methods.install(_Tensor)  # every Tensor method and operator, attached here once

__all__ = ["GradOperation", "HookBackward", "HyperMap", "Map", "MultitypeFuncGraph", "composite",
           "functional", "operations", "shape", *_functional_all, *_operations_all, *_complex_all]

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from .. import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("ops", __name__)
