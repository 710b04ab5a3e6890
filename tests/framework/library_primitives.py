"""The library's primitive classes whose node carries an operand as an attribute
(``ReduceSum(keep_dims, axis)``, ``Transpose(perm)``, ``Cast(dtype)``, ``GeLU(approximate)``,
``OneHot(depth, ...)``, ``Conv2D(stride=...)``), or that MindSpore's class form wraps,
for the tests that build nodes directly: ``ops.ReduceSum`` is MindSpore's class form, which
takes that operand at call time (``framework/ops/operations/prim_call_operands.py``)."""

from framework.ops.activations import GeLU
from framework.ops.conv import Conv2D
from framework.ops.elementwise import Cast
from framework.ops.nn_ops import BiasAdd, Dropout, OneHot
from framework.ops.reduce import ReduceAll, ReduceAny, ReduceMax, ReduceMean, ReduceSum
from framework.ops.reductions import ReduceProd
from framework.ops.scan import CumSum
from framework.ops.scatter_gather import Gather, IndexAdd, ScatterUpdate
from framework.ops.shape_ops import ExpandDims, Reshape, Slice, Transpose
from framework.ops.sorting import TopK

__all__ = ["BiasAdd", "Cast", "Conv2D", "CumSum", "Dropout", "ExpandDims", "Gather", "GeLU", "IndexAdd",
           "OneHot", "ReduceAll", "ReduceAny", "ReduceMax", "ReduceMean", "ReduceProd", "ReduceSum",
           "Reshape", "ScatterUpdate", "Slice", "TopK", "Transpose"]
