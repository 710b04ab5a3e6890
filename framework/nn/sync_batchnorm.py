"""``nn.SyncBatchNorm``: batch normalization whose training statistics span every rank.

In training, each rank sums ``x`` and ``x * x`` per channel over its own batch; one
``ops.AllReduce`` (a single message of ``2 * C`` values) gives the sums over all ranks,
from which the mean and the biased variance of the whole global batch follow (as one
process would compute them over the concatenated batches); the moving statistics are
updated with those (unbiased variance, MindSpore's momentum convention). The all-reduce
is differentiable (its gradient is the all-reduce of the upstream gradients), so the
backward pass is the one of BatchNorm over the global batch. Contract: every rank passes
a batch of the same size (the trainer's sharded loaders do). Evaluation uses the moving
statistics, as ``nn.BatchNorm2d``. With one process it computes what ``BatchNorm2d`` does.
"""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import ops
from ..ops.comm import AllReduce
from .normalization import _BatchNorm


class SyncBatchNorm(_BatchNorm):
    """``SyncBatchNorm(num_features, eps, momentum, affine, gamma_init, beta_init,
    moving_mean_init, moving_var_init, use_batch_statistics, process_groups=None)``;
    inputs N x C x H x W (or N x C)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", moving_mean_init: Any = "zeros",
                 moving_var_init: Any = "ones", use_batch_statistics: bool | None = None,
                 process_groups: Any = None, dtype: Any = mstype.float32) -> None:
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)
        if process_groups is not None:
            raise ValueError("SyncBatchNorm: process_groups are not supported; statistics span all ranks")
        from ..communication import get_group_size

        self.group_size = get_group_size()

    def construct(self, x):
        if len(x.shape) not in (2, 4) or x.shape[1] != self.num_features:
            raise ValueError(f"SyncBatchNorm({self.num_features}): expected an N x C (x H x W) input with "
                             f"{self.num_features} channels, got {tuple(x.shape)}")
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if not use_batch:
            bn = ops.BatchNorm(False, self.eps, 1.0 - self.momentum)
            return bn(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        axes = (0,) + tuple(range(2, len(x.shape)))
        shape = (1, self.num_features) + (1,) * (len(x.shape) - 2)
        count = (x.size // self.num_features) * self.group_size
        local = ops.concat([ops.reduce_sum(x, axes), ops.reduce_sum(ops.mul(x, x), axes)], 0)
        total = AllReduce()(local)
        mean = ops.div(ops.slice_(total, (0,), (self.num_features,)), float(count))
        square = ops.div(ops.slice_(total, (self.num_features,), (self.num_features,)), float(count))
        var = ops.maximum(ops.sub(square, ops.mul(mean, mean)), 0.0)
        inv = ops.div(1.0, ops.sqrt(ops.add(var, self.eps)))
        scale = ops.reshape(ops.mul(self.gamma, inv), shape)
        y = ops.add(ops.mul(ops.sub(x, ops.reshape(mean, shape)), scale), ops.reshape(self.beta, shape))
        if self.training:
            unbiased = ops.stop_gradient(var) * (count / max(count - 1, 1))
            m = self.momentum
            self.moving_mean.set_data(self.moving_mean * m + ops.stop_gradient(mean) * (1 - m))
            self.moving_variance.set_data(self.moving_variance * m + unbiased * (1 - m))
        return y
