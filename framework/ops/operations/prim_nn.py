"""Neural-network primitive classes (losses, GLU, pooling, normalisation, depth/space
rearrangement, channel dropout) over the functional ops we have, as MindSpore
2.10's ``mindspore.ops.operations`` spell them: attributes in the constructor, tensors in
the call. Gradients and graph mode are those of the functional ops each one applies.

Contracts (``P.X(attrs)(tensors)``):

- ``BinaryCrossEntropy(reduction='mean')(logits, labels, weight=None)``: on probabilities;
  ``BCEWithLogitsLoss(reduction='mean')(logits, label, weight, pos_weight)``;
  ``SigmoidCrossEntropyWithLogits()(logits, label)``: the same, unreduced, no weights, and
  (MindSpore's rule) no gradient to ``label``;
- ``KLDivLoss(reduction='mean')(logits, labels)``;
  ``MultiMarginLoss(p=1, margin=1.0, reduction='mean')(inputs, target, weight=None)``;
- ``NLLLoss(reduction='mean', ignore_index=-100)(logits, labels, weight)``: ``(loss,
  total_weight)``, the second the sum of ``weight[label]`` over the kept labels;
- ``SoftmaxCrossEntropyWithLogits()(logits, labels)``: ``(loss, dlogits)``, per row
  ``-sum(labels * log_softmax(logits))`` and ``softmax(logits) - labels``;
- ``SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)``: the mean loss over
  rows of integer ``labels``; with ``is_grad`` its gradient ``(softmax - onehot) / N``;
- ``GLU(axis=-1)(x)``, ``ChannelShuffle(group)(x)``, ``AdaptiveAvgPool2D(output_size)(x)``,
  ``AdaptiveMaxPool2D(output_size)(x)``;
- ``L2Normalize(axis=0, epsilon=1e-4)(x)``: ``x / sqrt(max(sum(x**2, axis), epsilon))``;
- ``DepthToSpace(block_size)(x)`` (NCHW; channel ``(i * b + j) * C' + c`` goes to
  ``(c, h * b + i, w * b + j)``) and ``SpaceToDepth(block_size)(x)``, its inverse;
- ``Dropout2D(keep_prob=0.5)(x)`` / ``Dropout3D``: ``(output, mask)``, whole channels
  zeroed with probability ``1 - keep_prob``, the rest scaled by ``1 / keep_prob``; ``mask``
  is bool, ``x``'s shape (``keep_prob=0``: all zeros).
"""

from __future__ import annotations

from typing import Any

from ... import dtype as mstype
from .. import functional as ops
from .._class_form import REQUIRED, class_form


def _bce(logits: Any, labels: Any, weight: Any = None, *, reduction: str) -> Any:
    return ops.binary_cross_entropy(logits, labels, weight, reduction)


def _bce_logits(logits: Any, label: Any, weight: Any, pos_weight: Any, *, reduction: str) -> Any:
    return ops.binary_cross_entropy_with_logits(logits, label, weight, pos_weight, reduction)


def _sigmoid_ce(logits: Any, label: Any) -> Any:
    # MindSpore's rule gives the label no gradient
    return ops.binary_cross_entropy_with_logits(logits, ops.stop_gradient(label), None, None, "none")


def _kl_div(logits: Any, labels: Any, *, reduction: str) -> Any:
    return ops.kl_div(logits, labels, reduction)


def _multi_margin(inputs: Any, target: Any, weight: Any = None, *, p: int, margin: float,
                  reduction: str) -> Any:
    return ops.multi_margin_loss(inputs, target, p, margin, weight, reduction)


def _nll(logits: Any, labels: Any, weight: Any, *, reduction: str, ignore_index: int) -> Any:
    loss = ops.nll_loss(logits, labels, weight, ignore_index, reduction)
    kept = ops.cast(ops.not_equal(labels, ignore_index), weight.dtype)
    safe = ops.select(ops.not_equal(labels, ignore_index), labels, ops.zeros_like(labels))
    total = (ops.gather(weight, safe, 0) * kept).sum()
    return loss, total


def _softmax_ce(logits: Any, labels: Any) -> Any:
    loss = -(labels * ops.log_softmax(logits, -1)).sum(-1)
    return loss, ops.softmax(logits, -1) - labels


def _sparse_softmax_ce(logits: Any, labels: Any, *, is_grad: bool) -> Any:
    depth = logits.shape[-1]
    onehot = ops.one_hot(labels, depth, ops.ones((), logits.dtype), ops.zeros((), logits.dtype))
    if is_grad:
        return (ops.softmax(logits, -1) - onehot) / logits.shape[0]
    return -(onehot * ops.log_softmax(logits, -1)).sum(-1).mean()


def _glu(x: Any, *, axis: int) -> Any:
    return ops.glu(x, axis)


def _channel_shuffle(x: Any, *, group: int) -> Any:
    return ops.channel_shuffle(x, group)


def _adaptive_avg(x: Any, *, output_size: Any) -> Any:
    return ops.adaptive_avg_pool2d(x, output_size)


def _adaptive_max(x: Any, *, output_size: Any) -> Any:
    return ops.adaptive_max_pool2d(x, output_size)


def _l2_normalize(x: Any, *, axis: Any, epsilon: float) -> Any:
    axes = tuple(axis) if isinstance(axis, list | tuple) else (axis,)
    square_sum = ops.sum(x * x, axes, True)
    return x * ops.rsqrt(ops.maximum(square_sum, ops.fill(x.dtype, (), epsilon)))


def _block(who: str, x: Any, block_size: Any) -> tuple[int, ...]:
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 2:
        raise ValueError(f"{who}: block_size must be an int >= 2, got {block_size!r}")
    if len(x.shape) != 4:
        raise ValueError(f"{who}: needs a 4-D (N, C, H, W) input, got shape {tuple(x.shape)}")
    return tuple(x.shape)


def _depth_to_space(x: Any, *, block_size: int) -> Any:
    n, c, h, w = _block("DepthToSpace", x, block_size)
    b = block_size
    if c % (b * b):
        raise ValueError(f"DepthToSpace: channels {c} are not a multiple of block_size**2 = {b * b}")
    y = ops.reshape(x, (n, b, b, c // (b * b), h, w))
    return ops.reshape(ops.transpose(y, (0, 3, 4, 1, 5, 2)), (n, c // (b * b), h * b, w * b))


def _space_to_depth(x: Any, *, block_size: int) -> Any:
    n, c, h, w = _block("SpaceToDepth", x, block_size)
    b = block_size
    if h % b or w % b:
        raise ValueError(f"SpaceToDepth: height {h} and width {w} must be multiples of block_size {b}")
    y = ops.reshape(x, (n, c, h // b, b, w // b, b))
    return ops.reshape(ops.transpose(y, (0, 3, 5, 1, 2, 4)), (n, c * b * b, h // b, w // b))


def _channel_dropout(who: str, rank: int, fn_name: str):
    def apply(x: Any, *, keep_prob: float) -> Any:
        if len(x.shape) != rank:
            raise ValueError(f"{who}: needs a {rank}-D input, got shape {tuple(x.shape)}")
        if not 0.0 <= keep_prob <= 1.0:
            raise ValueError(f"{who}: keep_prob must be in [0, 1], got {keep_prob!r}")
        if keep_prob == 0.0:
            return ops.zeros_like(x), ops.zeros(tuple(x.shape), mstype.bool_)
        scale = getattr(ops, fn_name)(ops.ones_like(x), 1.0 - keep_prob, True)
        return x * scale, ops.not_equal(scale, 0)

    apply.__name__ = f"ops.{fn_name}"
    return apply


BinaryCrossEntropy = class_form("BinaryCrossEntropy", _bce, reduction="mean")
BCEWithLogitsLoss = class_form("BCEWithLogitsLoss", _bce_logits, reduction="mean")
SigmoidCrossEntropyWithLogits = class_form("SigmoidCrossEntropyWithLogits", _sigmoid_ce)
KLDivLoss = class_form("KLDivLoss", _kl_div, reduction="mean")
MultiMarginLoss = class_form("MultiMarginLoss", _multi_margin, p=1, margin=1.0, reduction="mean")
NLLLoss = class_form("NLLLoss", _nll, reduction="mean", ignore_index=-100)
SoftmaxCrossEntropyWithLogits = class_form("SoftmaxCrossEntropyWithLogits", _softmax_ce)
SparseSoftmaxCrossEntropyWithLogits = class_form("SparseSoftmaxCrossEntropyWithLogits",
                                                 _sparse_softmax_ce, is_grad=False)
GLU = class_form("GLU", _glu, axis=-1)
ChannelShuffle = class_form("ChannelShuffle", _channel_shuffle, group=REQUIRED)
AdaptiveAvgPool2D = class_form("AdaptiveAvgPool2D", _adaptive_avg, output_size=REQUIRED)
AdaptiveMaxPool2D = class_form("AdaptiveMaxPool2D", _adaptive_max, output_size=REQUIRED)
L2Normalize = class_form("L2Normalize", _l2_normalize, axis=0, epsilon=1e-4)
DepthToSpace = class_form("DepthToSpace", _depth_to_space, block_size=REQUIRED)
SpaceToDepth = class_form("SpaceToDepth", _space_to_depth, block_size=REQUIRED)
Dropout2D = class_form("Dropout2D", _channel_dropout("Dropout2D", 4, "dropout2d"), keep_prob=0.5)
Dropout3D = class_form("Dropout3D", _channel_dropout("Dropout3D", 5, "dropout3d"), keep_prob=0.5)

__all__ = ["AdaptiveAvgPool2D", "AdaptiveMaxPool2D", "BCEWithLogitsLoss", "BinaryCrossEntropy",
           "ChannelShuffle", "DepthToSpace", "Dropout2D", "Dropout3D", "GLU", "KLDivLoss", "L2Normalize",
           "MultiMarginLoss", "NLLLoss", "SigmoidCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits",
           "SpaceToDepth", "SparseSoftmaxCrossEntropyWithLogits"]
