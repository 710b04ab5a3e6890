"""Functional forms of every primitive (``ops.add``, ``ops.matmul`` ...), MindSpore's
``mindspore.ops.functional`` (``F.assign``, ``F.depend`` ...)."""

import functools

from .activations import erf, fast_gelu, gelu, silu, softplus

# issue 25: more of MindSpore's functional names (new primitives and compositions)
from .activations_extra import (
    celu,
    elu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    logsigmoid,
    mish,
    prelu,
    relu6,
    selu,
    softmin,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
)
from .add_n import addn
from .array_extra import (
    diag,
    diff,
    eye,
    flip,
    fliplr,
    flipud,
    full_like,
    meshgrid,
    moveaxis,
    movedim,
    narrow,
    outer,
    ravel,
    repeat_interleave,
    roll,
    swapaxes,
    swapdims,
    t,
    trace,
    unbind,
    unsqueeze,
)
from .array_more import (  # issue 25: more MindSpore names
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    cartesian_prod,
    column_stack,
    diagflat,
    dsplit,
    dstack,
    hsplit,
    hstack,
    index_select,
    ldexp,
    linspace,
    logspace,
    matrix_power,
    msort,
    rot90,
    row_stack,
    tensor_split,
    tril_indices,
    triu_indices,
    vsplit,
    vstack,
)
from .array_ops import arange, chunk, split, stack, tile, unstack
from .clip import clip_by_global_norm
from .comm import all_reduce
from .creation import fill, full, ones, ones_like, zeros, zeros_like
from .elementwise import (
    abs,
    add,
    cast,
    cos,
    div,
    equal,
    exp,
    floor_div,
    floor_mod,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    minimum,
    mul,
    neg,
    not_equal,
    pow,
    relu,
    select,
    sigmoid,
    sin,
    sqrt,
    square,
    sub,
    sum_to,
    tanh,
)
from .group_conv import conv2d
from .indexing import getitem, setitem
from .layer_norm import layer_norm, layer_norm_grad
from .loss_extra import (  # issue 25: more MindSpore names
    binary_cross_entropy,
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_soft_margin_loss,
    nll_loss,
    smooth_l1_loss,
)
from .loss_fns import binary_cross_entropy_with_logits, cross_entropy
from .masking import masked_fill, tril, triu, where
from .math_binary import (
    arctan2,
    atan2,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    logical_and,
    logical_or,
    logical_xor,
)
from .math_composite import (
    absolute,
    clamp,
    clip,
    deg2rad,
    divide,
    exp2,
    floor_divide,
    fmod,
    frac,
    hypot,
    lerp,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    multiply,
    negative,
    positive,
    rad2deg,
    remainder,
    subtract,
    true_divide,
    xlogy,
)
from .math_more import (  # issue 25: more MindSpore names
    all,
    aminmax,
    any,
    argsort,
    clip_by_value,
    copysign,
    eq,
    float_power,
    fmax,
    ge,
    gt,
    heaviside,
    is_floating_point,
    is_tensor,
    isclose,
    isneginf,
    isposinf,
    le,
    logit,
    nan_to_num,
    nanmean,
    nansum,
    ne,
    numel,
    sgn,
    signbit,
    sinc,
    std_mean,
    trapz,
    truncate_div,
    truncate_mod,
    var_mean,
    vector_norm,
    xdivy,
)
from .math_unary import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctanh,
    asin,
    asinh,
    atan,
    atanh,
    ceil,
    cosh,
    erfc,
    expm1,
    floor,
    invert,
    isfinite,
    isinf,
    isnan,
    log1p,
    logical_not,
    reciprocal,
    round,
    rsqrt,
    sign,
    sinh,
    tan,
    trunc,
)
from .nn_extra import (  # issue 25: more MindSpore names
    cdist,
    channel_shuffle,
    cosine_similarity,
    dist,
    dropout1d,
    dropout2d,
    dropout3d,
    glu,
    group_norm,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
)
from .nn_ops import (
    batch_norm,
    bias_add,
    dense,
    dropout,
    log_softmax,
    matmul,
    one_hot,
    softmax,
)
from .pool import avg_pool2d, max_pool2d
from .pool_extra import (  # issue 25: more MindSpore names
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    max_pool1d,
)
from .products_extra import (  # issue 25: more MindSpore names
    addbmm,
    addcdiv,
    addcmul,
    addmm,
    addmv,
    addr,
    baddbmm,
    bmm,
    cross,
    dot,
    ger,
    inner,
    kron,
    mm,
    mv,
    tensor_dot,
    vecdot,
)
from .reduce import (
    argmax,
    mean,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_sum,
    sum,
)
from .reduce_extra import (
    amax,
    amin,
    argmin,
    count_nonzero,
    logsumexp,
    max,
    min,
    norm,
    prod,
    reduce_min,
    std,
    var,
)
from .scan import cumsum
from .scan_extra import (  # issue 25: more MindSpore names
    cummax,
    cummin,
    cumprod,
    logcumsumexp,
)
from .scatter_gather import gather, index_add, scatter_update
from .shape import (
    broadcast_to,
    cat,
    concat,
    expand_dims,
    flatten,
    pad,
    permute,
    reshape,
    slice_,
    squeeze,
    stop_gradient,
    transpose,
)
from .sorting import multinomial, sort, topk
from .state import assign, depend
from .tensor_info import dtype, rank, shape, size  # noqa: F401  (shape: not in __all__)
from .zoo_extra import assign_add, gather_nd, identity, make_range, strided_slice

# MindSpore's older ``F.tensor_*`` names and helpers optimizers are written with
tensor_add, tensor_sub, tensor_mul, tensor_div, tensor_pow = add, sub, mul, div, pow
tensor_lt, tensor_le, tensor_gt, tensor_ge = less, less_equal, greater, greater_equal
tensor_floordiv, tensor_mod = floor_div, floor_mod
partial = functools.partial


def tuple_to_array(input_x):
    """MindSpore's ``F.tuple_to_array((1, 2, 3))``: a 1-D tensor of the tuple's numbers (int32
    for ints, as MindSpore 2.10 gives; float32 for floats)."""
    from ..tensor import Tensor

    if not isinstance(input_x, tuple):
        raise TypeError(f"tuple_to_array: input_x must be a tuple, got {type(input_x).__name__}")
    if not input_x:
        raise ValueError("tuple_to_array: input_x must not be empty")
    if not [v for v in input_x if not isinstance(v, int) or isinstance(v, bool)]:  # (ops.all shadows all)
        return Tensor(input_x, "int32")
    return Tensor(input_x)


def scalar_to_array(input_x):
    """MindSpore's ``F.scalar_to_array(x)``: a 0-d tensor (int64 for an int, else float32)."""
    from ..tensor import Tensor

    if isinstance(input_x, bool) or not isinstance(input_x, int | float):
        raise TypeError(f"scalar_to_array: input_x must be an int or a float, got {type(input_x).__name__}")
    return Tensor(input_x)


def scalar_to_tensor(input_x, dtype=None):
    """``F.scalar_to_tensor(1, mstype.int32)``: a 0-d tensor (float32 by default)."""
    from .creation import full

    return full((), input_x, dtype=dtype or "float32")


# ``F.grad`` / ``F.value_and_grad`` (MindSpore's functional module holds them too) are set
# by the ``framework.ops`` package: this module, below autograd, does not import it

# ``F.shape`` is here but not in ``__all__``: ``from .functional import *`` in ``ops`` would
# shadow the ``framework.ops.shape`` module

__all__ = [
    "arange", "chunk", "split", "stack", "tile", "unstack", "multinomial", "sort", "topk",
    "all_reduce",
    # sequence models (issue 22): layer norm, activations
    "cumsum", "erf", "fast_gelu", "gelu", "layer_norm", "layer_norm_grad", "silu", "softplus",
    # attention (issue 22): masks and triangles
    "masked_fill", "tril", "triu",
    "abs", "add", "addn", "argmax", "assign", "avg_pool2d", "batch_norm", "bias_add",
    "broadcast_to", "cast", "cat", "clip_by_global_norm", "concat", "conv2d", "dense", "depend",
    "div", "dropout",
    "binary_cross_entropy_with_logits", "cos", "cross_entropy", "dtype", "equal", "exp",
    "expand_dims", "fill", "flatten", "floor_div",
    "floor_mod",
    "floordiv", "floormod", "full", "gather", "getitem", "greater", "greater_equal",
    "index_add", "less", "less_equal", "log", "log_softmax", "matmul", "max_pool2d", "maximum",
    "mean", "minimum", "mul", "neg", "not_equal", "one_hot", "ones", "ones_like", "pad",
    "permute", "pow", "rank", "reduce_all", "reduce_any", "reduce_max", "reduce_mean",
    "reduce_sum", "relu", "reshape", "scatter_update", "select", "setitem", "sigmoid",
    "size", "slice_", "softmax", "sqrt", "square", "squeeze", "stop_gradient", "sub", "sum",
    "sin", "sum_to", "tanh", "tensor_add", "transpose", "where", "zeros", "zeros_like",
    "partial", "scalar_to_tensor", "tensor_div", "tensor_floordiv", "tensor_ge", "tensor_gt",
    "tensor_le", "tensor_lt", "tensor_mod", "tensor_mul", "tensor_pow", "tensor_sub",
    # issue 25: elementwise math, logical/bitwise, reductions, array ops, activations
    "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asin",
    "asinh", "atan", "atanh", "ceil", "cosh", "erfc", "expm1", "floor", "invert", "isfinite",
    "isinf", "isnan", "log1p", "logical_not", "reciprocal", "round", "rsqrt", "sign", "sinh",
    "tan", "trunc",
    "arctan2", "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
    "logical_or", "logical_xor",
    "absolute", "clamp", "clip", "deg2rad", "divide", "exp2", "floor_divide", "fmod", "frac",
    "hypot", "lerp", "log2", "log10", "logaddexp", "logaddexp2", "multiply", "negative",
    "positive", "rad2deg", "remainder", "subtract", "true_divide", "xlogy",
    "amax", "amin", "argmin", "count_nonzero", "logsumexp", "max", "min", "norm", "prod",
    "reduce_min", "std", "var",
    "diag", "diff", "eye", "flip", "fliplr", "flipud", "full_like", "meshgrid", "moveaxis",
    "movedim", "narrow", "outer", "ravel", "repeat_interleave", "roll", "swapaxes", "swapdims",
    "t", "trace", "unbind", "unsqueeze",
    "celu", "elu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu",
    "logsigmoid", "mish", "prelu", "relu6", "selu", "softmin", "softshrink", "softsign",
    "tanhshrink", "threshold",
]
__all__ += [
    "block_diag", "cartesian_prod", "ldexp", "linspace", "logspace", "matrix_power", "msort",
    "tril_indices", "triu_indices", "tuple_to_array",
    # issue 25: losses, pooling, distances, products, array and math functions
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr", "all", "aminmax", "any", "argsort",
    "atleast_1d", "atleast_2d", "atleast_3d", "avg_pool1d", "baddbmm", "binary_cross_entropy",
    "bmm", "cdist", "channel_shuffle", "clip_by_value", "column_stack", "copysign",
    "cosine_embedding_loss", "cosine_similarity", "cross", "cummax", "cummin", "cumprod",
    "diagflat", "dist", "dot", "dropout1d", "dropout2d", "dropout3d", "dsplit", "dstack", "eq",
    "float_power", "fmax", "gaussian_nll_loss", "ge", "ger", "glu", "group_norm", "gt", "heaviside",
    "hinge_embedding_loss", "hsplit", "hstack", "huber_loss", "index_select", "inner",
    "is_floating_point", "is_tensor", "isclose", "isneginf", "isposinf", "kl_div", "kron",
    "l1_loss", "le", "logcumsumexp", "logit", "margin_ranking_loss", "max_pool1d", "mm", "mse_loss",
    "multi_margin_loss", "multilabel_soft_margin_loss", "mv", "nan_to_num", "nanmean", "nansum",
    "ne", "nll_loss", "numel", "pdist", "pixel_shuffle", "pixel_unshuffle", "rot90", "row_stack",
    "sgn", "signbit", "sinc", "smooth_l1_loss", "std_mean", "tensor_dot", "tensor_split", "trapz",
    "truncate_div", "truncate_mod", "var_mean", "vecdot", "vector_norm", "vsplit", "vstack",
    "xdivy",
]
# issue 25: names the model zoo's networks use
__all__ += ["assign_add", "gather_nd", "identity", "make_range", "strided_slice"]
