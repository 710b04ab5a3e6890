"""``mindspore.ops.operations``: the primitive classes, as ``from framework.ops import
operations as P`` code uses them (``P.ReduceSum()``, ``P.Assign()``, ``P.MatMul()`` ...)."""

from ...autograd.hooks import HookBackward
from ..activations import Erf, FastGeLU, GeLU, SiLU, Softplus

# issue 25: more of MindSpore's primitive classes
from ..activations_extra import (
    CeLU,
    Elu,
    HShrink,
    HSigmoid,
    HSwish,
    Mish,
    PReLU,
    ReLU6,
    SeLU,
    SoftShrink,
    Softsign,
)
from ..add_n import AddN
from ..array_extra import Diag, Eye, Meshgrid, ReverseV2, Roll, Trace
from ..array_ops import Split, Stack, Tile, Unstack
from ..batch_matmul import BatchMatMul
from ..comm import AllReduce, ReduceOp
from ..complex_ops import Complex, ComplexAbs, Imag, Polar
from ..conv import Conv2D, Conv2DBackpropFilter
from ..creation import Fill, Ones, Zeros
from ..debug import Print
from ..elementwise import (
    Abs,
    Add,
    Cast,
    Cos,
    Div,
    Equal,
    Exp,
    FloorDiv,
    FloorMod,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    Log,
    Maximum,
    Minimum,
    Mul,
    Neg,
    NotEqual,
    Pow,
    RealDiv,
    ReLU,
    Select,
    Sigmoid,
    Sin,
    Sqrt,
    Sub,
    Tanh,
)
from ..group_conv import GroupConv2D, GroupConv2DBackpropFilter, GroupConv2DBackpropInput
from ..layer_norm import LayerNorm, LayerNormGrad
from ..masking import MaskedFill, Tril, Triu
from ..math_binary import Atan2, BitwiseAnd, BitwiseOr, BitwiseXor, LogicalAnd, LogicalOr, LogicalXor
from ..math_composite import DivNoNan, Hypot, Lerp, SquaredDifference, TruncateDiv, TruncateMod, Xlogy
from ..math_unary import (
    ACos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atanh,
    Ceil,
    Cosh,
    Erfc,
    Expm1,
    Floor,
    Invert,
    IsFinite,
    IsInf,
    IsNan,
    Log1p,
    LogicalNot,
    Reciprocal,
    Rint,
    Round,
    Rsqrt,
    Sign,
    Sinh,
    Square,
    Tan,
    Trunc,
)
from ..nn_ops import BatchNorm, BiasAdd, Dropout, LogSoftmax, MatMul, OneHot, Softmax
from ..pool import AvgPool, AvgPoolGrad, MaxPool, MaxPoolGrad
from ..reduce import Argmax, ReduceAll, ReduceAny, ReduceMax, ReduceMean, ReduceSum
from ..reduce_extra import ArgMaxWithValue, Argmin, ArgMinWithValue, ReduceMin, ReduceProd
from ..scan import CumSum
from ..scatter_gather import Gather, IndexAdd, ScatterNd, ScatterUpdate
from ..shape import (
    BroadcastTo,
    Concat,
    ExpandDims,
    OnesLike,
    Pad,
    Reshape,
    Slice,
    Squeeze,
    StopGradient,
    Transpose,
    ZerosLike,
)
from ..sorting import Sort, TopK
from ..state import Assign, Depend
from ..tensor_info import DType, Rank, Shape, Size
from ..view_ops import *  # noqa: F403  (MindSpore's view primitives: P.TransposeView ...)
from ..zoo_extra import (
    AssignAdd,
    Flatten,
    FloatStatus,
    GatherNd,
    NPUAllocFloatStatus,
    NPUClearFloatStatus,
    NPUGetFloatStatus,
    StridedSlice,
)
from .prim_array import *  # noqa: F403  (issue 25: more primitive classes over our functionals)
from .prim_array import __all__ as _prim_array
from .prim_boxes import *  # noqa: F403
from .prim_boxes import __all__ as _prim_boxes
from .prim_image import *  # noqa: F403
from .prim_image import __all__ as _prim_image
from .prim_index import *  # noqa: F403
from .prim_index import __all__ as _prim_index
from .prim_math import *  # noqa: F403
from .prim_math import __all__ as _prim_math
from .prim_nn import *  # noqa: F403
from .prim_nn import __all__ as _prim_nn
from .prim_optim import *  # noqa: F403
from .prim_optim import __all__ as _prim_optim
from .prim_random import *  # noqa: F403
from .prim_random import __all__ as _prim_random
from .prim_sets import *  # noqa: F403
from .prim_sets import __all__ as _prim_sets
from .prim_update import *  # noqa: F403
from .prim_update import __all__ as _prim_update

TensorAdd = Add  # MindSpore's old name of Add

__all__ = [
    "Split", "Stack", "Tile", "Unstack", "Sort", "TopK",
    "AllReduce", "ReduceOp", "BatchMatMul",
    # sequence models (issue 22): layer norm, activations
    "CumSum", "Erf", "FastGeLU", "GeLU", "LayerNorm", "LayerNormGrad", "SiLU", "Softplus",
    "MaskedFill", "Tril", "Triu",
    "Abs", "Add", "AddN", "Argmax", "Assign", "AvgPool", "AvgPoolGrad", "BatchNorm", "BiasAdd",
    "BroadcastTo", "Cast", "Concat", "Conv2D", "Conv2DBackpropFilter",
    "Cos", "DType", "Depend", "Div", "Dropout", "Equal", "Exp", "ExpandDims", "Fill", "FloorDiv",
    "FloorMod", "Gather", "ScatterNd", "Greater", "GreaterEqual", "GroupConv2D",
    "GroupConv2DBackpropFilter", "GroupConv2DBackpropInput", "IndexAdd", "Less", "LessEqual", "Log",
    "LogSoftmax", "MatMul", "MaxPool", "MaxPoolGrad", "Maximum", "Minimum", "Mul", "Neg",
    "NotEqual", "OneHot", "Ones", "OnesLike", "Pad", "Pow", "Print", "Rank", "ReLU", "RealDiv",
    "ReduceAll", "ReduceAny", "ReduceMax", "ReduceMean", "ReduceSum", "Reshape",
    "ScatterUpdate", "Select", "Shape", "Sigmoid", "Size", "Slice", "Softmax", "Sqrt",
    "Sin", "Squeeze", "StopGradient", "Sub", "Tanh", "TensorAdd", "Transpose", "Zeros", "ZerosLike",
    # issue 25
    "CeLU", "Elu", "HShrink", "HSigmoid", "HSwish", "Mish", "PReLU", "ReLU6", "SeLU", "Softsign",
    "SoftShrink", "Diag", "Eye", "Meshgrid", "ReverseV2", "Roll", "Trace", "Atan2", "BitwiseAnd",
    "BitwiseOr", "BitwiseXor", "LogicalAnd", "LogicalOr", "LogicalXor", "DivNoNan", "Hypot", "Lerp",
    "SquaredDifference", "TruncateDiv", "TruncateMod", "Xlogy", "ACos", "Acosh", "Asin", "Asinh",
    "Atan", "Atanh", "Ceil", "Cosh", "Erfc", "Expm1", "Floor", "Invert", "IsFinite", "IsInf",
    "IsNan", "Log1p", "LogicalNot", "Reciprocal", "Rint", "Round", "Rsqrt", "Sign", "Sinh",
    "Square", "Tan", "Trunc", "ArgMaxWithValue", "Argmin", "ArgMinWithValue", "ReduceMin",
    "ReduceProd",
    # issue 25: the model zoo's networks
    "AssignAdd", "Flatten", "FloatStatus", "GatherNd", "NPUAllocFloatStatus", "NPUClearFloatStatus",
    "NPUGetFloatStatus", "StridedSlice",
    # issue 25: the complex primitives (framework/ops/complex_ops.py) under P too
    "Complex", "ComplexAbs", "Imag", "Polar", "HookBackward",
]

GatherV2 = Gather  # MindSpore's older name of Gather: GatherV2()(params, indices, axis)

from ..view_ops import __all__ as _views  # noqa: E402

__all__ += (_views + _prim_array + _prim_boxes + _prim_image + _prim_index + _prim_math + _prim_nn
            + _prim_optim + _prim_random + _prim_sets + _prim_update)

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from ... import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("ops.operations", __name__)
