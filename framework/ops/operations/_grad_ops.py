"""``mindspore.ops.operations._grad_ops`` (``from mindspore.ops.operations import _grad_ops
as G``): the backward primitives MindSpore's operator tests call, ours in
:mod:`framework.ops.grad_ops` and the primitives of our own bprops."""

from ..grad_ops import (
    AbsGrad,
    BiasAddGrad,
    MaximumGrad,
    MinimumGrad,
    ReciprocalGrad,
    ReLU6Grad,
    ReluGrad,
    RsqrtGrad,
    SigmoidGrad,
    SiLUGrad,
    SoftplusGrad,
    SqrtGrad,
    TanhGrad,
)
from . import AvgPoolGrad, Conv2DBackpropFilter, Conv2DBackpropInput, LayerNormGrad, MaxPoolGrad

__all__ = ["AbsGrad", "AvgPoolGrad", "BiasAddGrad", "Conv2DBackpropFilter", "Conv2DBackpropInput",
           "LayerNormGrad", "MaxPoolGrad", "MaximumGrad", "MinimumGrad", "ReLU6Grad",
           "ReciprocalGrad", "ReluGrad", "RsqrtGrad", "SiLUGrad", "SigmoidGrad", "SoftplusGrad",
           "SqrtGrad", "TanhGrad"]
