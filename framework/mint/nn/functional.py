"""``mint.nn.functional``: PyTorch-style functional layers on ``framework.ops``.

Contracts, as MindSpore 2.10's ``mint.nn.functional``:

- activations take ``input`` (``inplace`` is accepted and returns a new tensor: tensors
  here are values); ``softmax``/``log_softmax`` take ``dim`` (None: the last axis) and
  ``dtype``; ``gelu`` takes ``approximate='none'|'tanh'``; ``leaky_relu`` defaults to a
  slope of 0.01;
- ``linear(input, weight, bias)``: ``input @ weight.T + bias``;
- ``conv2d``/``avg_pool2d``/``max_pool2d`` take PyTorch's ``padding`` (an int, a pair, or
  for ``conv2d`` ``'same'``/``'valid'``); ``max_pool2d`` supports ``padding=0`` only;
- losses take ``reduction='mean'|'sum'|'none'``; ``cross_entropy``/``nll_loss`` take
  class-index targets (or probabilities for ``cross_entropy``), ``ignore_index``, ``weight``;
- ``dropout(input, p, training=True)``; ``one_hot(tensor, num_classes=-1)`` gives int64
  (``-1``: ``max + 1``, PyNative only);
- ``flatten(input, start_dim=0, end_dim=-1)``.
"""

from __future__ import annotations

from ... import dtype as mstype
from ...ops import functional as ops
from ...ops import nn_ops
from ...ops._utils import argument_error
from ...ops.padding_modes import pad as pad_last_first
from ...ops.shape_ops import pad as pad_pairs
from ..math import sigmoid, tanh  # noqa: F401  (mint.nn.functional names)
from ..reduce import log_softmax, softmax  # noqa: F401  (mint.nn.functional names)
from ..resample import conv1d, grid_sample, interpolate, upsample  # noqa: F401
from ..shape import flatten  # noqa: F401


def _pair(value, name: str, op: str) -> tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    if isinstance(value, list | tuple) and len(value) == 2:
        return (int(value[0]), int(value[1]))
    raise argument_error(op, ValueError(f"{name} must be an int or a pair, got {value!r}"))


# -- activations --------------------------------------------------------------------------
def relu(input, inplace=False):  # noqa: A002
    return ops.relu(input)


def relu_(input):  # noqa: A002
    return ops.relu(input)


def relu6(input, inplace=False):  # noqa: A002
    return ops.relu6(input)


def silu(input, inplace=False):  # noqa: A002
    return ops.silu(input)


def gelu(input, approximate="none"):  # noqa: A002
    return ops.gelu(input, approximate=approximate)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    return ops.elu(input, alpha)


def leaky_relu(input, negative_slope=0.01):  # noqa: A002
    return ops.leaky_relu(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    return ops.hardtanh(input, min_val, max_val)


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    return ops.threshold(input, threshold, value)


def hardshrink(input, lambd=0.5):  # noqa: A002
    return ops.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):  # noqa: A002
    return ops.softshrink(input, lambd)


def hardsigmoid(input, inplace=False):  # noqa: A002
    return ops.hardsigmoid(input)


def hardswish(input, inplace=False):  # noqa: A002
    return ops.hardswish(input)


def logsigmoid(input):  # noqa: A002
    return ops.logsigmoid(input)


def mish(input):  # noqa: A002
    return ops.mish(input)


def selu(input, inplace=False):  # noqa: A002
    return ops.selu(input)


def softplus(input, beta=1, threshold=20):  # noqa: A002
    return ops.softplus(input, beta, threshold)


def prelu(input, weight):  # noqa: A002
    """``max(0, x) + weight * min(0, x)``, ``weight`` per channel (axis 1) or one value."""
    if weight.size != 1 and input.ndim > 1:
        weight = ops.reshape(weight, (-1,) + (1,) * (input.ndim - 2))
    return ops.maximum(input, 0.0) + weight * ops.minimum(input, 0.0)


def glu(input, dim=-1):  # noqa: A002
    return ops.glu(input, dim)


# -- layers -------------------------------------------------------------------------------
def linear(input, weight, bias=None):  # noqa: A002
    out = ops.matmul(input, ops.swapaxes(weight, -1, -2) if weight.ndim > 1 else weight)
    return out if bias is None else out + bias


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    return ops.dropout(input, p=p, training=training) if training and p > 0 else input


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    return ops.dropout2d(input, p=p, training=training) if training and p > 0 else input


def one_hot(tensor, num_classes=-1):
    if num_classes == -1:
        from .._util import concrete

        num_classes = int(concrete("one_hot", tensor, shape_from_values=True)[0].max()) + 1
    return nn_ops.one_hot(tensor, num_classes, 1, 0, dtype=mstype.int64)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False):
    if max_norm is not None:
        raise argument_error("embedding", ValueError("max_norm is not supported"))
    return ops.gather(weight, input, 0)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    if isinstance(padding, str):
        out = ops.conv2d(input, weight, None, stride, padding, 0, dilation, groups)
    else:
        top, left = _pair(padding, "padding", "conv2d")
        out = ops.conv2d(input, weight, None, stride, "pad", (top, top, left, left), dilation, groups)
    return out if bias is None else out + ops.reshape(bias, (1, -1, 1, 1))


def _pool_padded(input, padding, op: str):  # noqa: A002
    top, left = _pair(padding, "padding", op)
    if top == left == 0:
        return input
    return pad_pairs(input, ((0, 0), (0, 0), (top, top), (left, left)))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    if ceil_mode or divisor_override is not None or (not count_include_pad and padding != 0):
        raise argument_error("avg_pool2d", ValueError(
            "ceil_mode, divisor_override and count_include_pad=False are not supported"))
    return ops.avg_pool2d(_pool_padded(input, padding, "avg_pool2d"), kernel_size,
                          kernel_size if stride is None else stride)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    return ops.avg_pool1d(input, kernel_size, kernel_size if stride is None else stride, padding,
                          ceil_mode, count_include_pad)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    if padding != 0 or dilation != 1 or ceil_mode or return_indices:
        raise argument_error("max_pool2d", ValueError(
            "padding, dilation, ceil_mode and return_indices are not supported"))
    return ops.max_pool2d(input, kernel_size, kernel_size if stride is None else stride)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    return ops.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    return ops.adaptive_avg_pool2d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    if return_indices:
        raise argument_error("adaptive_max_pool1d", ValueError("return_indices is not supported"))
    return ops.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    out = ops.adaptive_max_pool2d(input, output_size, return_indices)
    return (out[0], ops.cast(out[1], mstype.int64)) if return_indices else out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-05):
    channels = input.shape[1]
    weight = ops.ones((channels,), input.dtype) if weight is None else weight
    bias = ops.zeros((channels,), input.dtype) if bias is None else bias
    return ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    mean = ops.mean(input, axes, True)
    var = ops.mean(ops.square(input - mean), axes, True)
    out = (input - mean) / ops.sqrt(var + eps)
    out = out if weight is None else out * weight
    return out if bias is None else out + bias


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    return ops.group_norm(input, num_groups, weight, bias, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12):  # noqa: A002
    from ..reduce import vector_norm

    return input / ops.maximum(vector_norm(input, p, dim, True), eps)


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """PyTorch's ``pad``: ``(before, after)`` pairs from the last axis backwards; ``mode``
    ``'constant'`` (``value``, default 0), ``'reflect'``, ``'replicate'`` or ``'circular'``."""
    return pad_last_first(input, pad, mode, value)


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    return ops.pixel_shuffle(input, upscale_factor)


# -- losses -------------------------------------------------------------------------------
def mse_loss(input, target, reduction="mean"):  # noqa: A002
    return ops.mse_loss(input, target, reduction)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    return ops.l1_loss(input, target, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):  # noqa: A002
    return ops.smooth_l1_loss(input, target, beta, reduction)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):  # noqa: A002
    return ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",  # noqa: A002
                                     pos_weight=None):
    """As MindSpore's: ``weight`` and ``pos_weight`` get no gradient."""
    return ops.binary_cross_entropy_with_logits(input, target, _constant(weight), _constant(pos_weight),
                                                reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
                  label_smoothing=0.0):
    """As MindSpore's: ``weight`` gets no gradient."""
    return ops.cross_entropy(input, target, _constant(weight), ignore_index, reduction, label_smoothing)


def _constant(weight):
    """A loss weight cut from the gradient (``None`` as it is)."""
    return None if weight is None else ops.stop_gradient(weight)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):  # noqa: A002
    return ops.nll_loss(input, target, weight, ignore_index, reduction)


def kl_div(input, target, reduction="mean", log_target=False):  # noqa: A002
    """``target * (log target - input)`` summed per ``reduction`` (``'batchmean'`` too)."""
    pointwise = ops.exp(target) * (target - input) if log_target else \
        ops.xlogy(target, target) - target * input
    if reduction == "none":
        return pointwise
    total = ops.sum(pointwise)
    if reduction == "sum":
        return total
    if reduction == "batchmean":
        return total / input.shape[0]
    return total / pointwise.size


def soft_margin_loss(input, target, reduction="mean"):  # noqa: A002
    loss = ops.log(1 + ops.exp(-target * input))
    return loss if reduction == "none" else (ops.sum(loss) if reduction == "sum" else ops.mean(loss))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    return ops.cosine_embedding_loss(input1, input2, target, margin, reduction)


# -- in-place spellings (a new tensor here: tensors are values) and re-exports ------------
def elu_(input, alpha=1.0):  # noqa: A002
    return ops.elu(input, alpha)


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    return ops.hardtanh(input, min_val, max_val)


def sigmoid_(input):  # noqa: A002
    return ops.sigmoid(input)


def threshold_(input, threshold, value):  # noqa: A002
    return ops.threshold(input, threshold, value)


# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from ... import absent_names as _absent_names  # noqa: E402
from ..math import clamp  # noqa: E402, F401
from ..shape import broadcast_to  # noqa: E402, F401

__getattr__ = _absent_names.module_getattr("mint.nn.functional", __name__)
