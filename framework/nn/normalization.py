"""Batch normalization."""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import initializer
from ..parameter import Parameter
from .cell import Cell
from .checks import positive_ints


class _BatchNorm(Cell):
    """Per-channel normalization over axis 1.

    Training uses batch statistics and updates ``moving_mean``/``moving_variance`` as
    ``moving = momentum * moving + (1 - momentum) * batch`` (MindSpore's convention,
    unbiased batch variance); evaluation uses the moving statistics. ``dtype`` (MindSpore's,
    default float32) is the parameters' dtype; a float16 input or float16 parameters are
    normalized with float32 statistics (``ops.BatchNorm``), and the moving statistics are
    updated in float32 and stored back in their own dtype.
    """

    expected_ndim = 4

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 moving_mean_init: Any = "zeros", moving_var_init: Any = "ones",
                 use_batch_statistics: bool | None = None, data_format: str = "NCHW",
                 dtype: Any = mstype.float32) -> None:
        super().__init__()

        if data_format != "NCHW":
            raise ValueError(f"{type(self).__name__}: only data_format='NCHW' is supported, "
                             f"got {data_format!r}")
        positive_ints(type(self).__name__, num_features=num_features)
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{type(self).__name__}: momentum must be in [0, 1], got {momentum}")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.use_batch_statistics = use_batch_statistics
        shape, dt = (num_features,), dtype or mstype.float32
        # MindSpore's order (the moving statistics first) and names
        self.moving_mean = Parameter(initializer(moving_mean_init, shape, dt), "mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, shape, dt), "variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, shape, dt), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dt), "beta", requires_grad=affine)

    def construct(self, x):
        if len(x.shape) != self.expected_ndim or x.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}({self.num_features}): expected a {self.expected_ndim}-d "
                f"input with {self.num_features} channels, got {tuple(x.shape)}"
            )
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        bn = ops.BatchNorm(use_batch, self.eps, 1.0 - self.momentum)
        y, mean, var = bn(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)
        if use_batch and self.training:
            count = x.size // self.num_features
            unbiased = ops.stop_gradient(var) * (count / max(count - 1, 1))
            m, dt = self.momentum, self.moving_mean.dtype
            new_mean = ops.cast(self.moving_mean, mean.dtype) * m + ops.stop_gradient(mean) * (1 - m)
            new_var = ops.cast(self.moving_variance, var.dtype) * m + unbiased * (1 - m)
            self.moving_mean.set_data(ops.cast(new_mean, dt))
            self.moving_variance.set_data(ops.cast(new_var, dt))
        return y


class BatchNorm2d(_BatchNorm):
    expected_ndim = 4


class BatchNorm1d(_BatchNorm):
    expected_ndim = 2


class LayerNorm(Cell):
    """MindSpore's ``nn.LayerNorm``: normalizes over ``begin_norm_axis..`` (whose shape is
    ``normalized_shape``), scales by ``gamma`` and shifts by ``beta`` (parameters of shape
    ``normalized_shape``, broadcast from ``begin_params_axis``)."""

    def __init__(self, normalized_shape: Any, begin_norm_axis: int = -1, begin_params_axis: int = -1,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", epsilon: float = 1e-7,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()

        if not isinstance(normalized_shape, list | tuple):
            raise TypeError(f"LayerNorm: normalized_shape must be a list or tuple, got "
                            f"{type(normalized_shape).__name__}")
        self.normalized_shape = tuple(int(d) for d in normalized_shape)
        positive_ints("LayerNorm", **{f"normalized_shape[{i}]": d
                                      for i, d in enumerate(self.normalized_shape)})
        self.begin_norm_axis, self.begin_params_axis = int(begin_norm_axis), int(begin_params_axis)
        self.epsilon = float(epsilon)
        dt = dtype or mstype.float32
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dt), "gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dt), "beta")
        self.layer_norm = ops.LayerNorm(self.begin_norm_axis, self.begin_params_axis, self.epsilon)

    def construct(self, x):
        shape = tuple(x.shape)
        axis = self.begin_norm_axis % len(shape) if shape else 0
        if shape[axis:] != self.normalized_shape:
            raise ValueError(f"LayerNorm{self.normalized_shape}: input {shape} from axis "
                             f"{self.begin_norm_axis} is {shape[axis:]}, expected {self.normalized_shape}")
        return self.layer_norm(x, self.gamma, self.beta)[0]

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}")


class BatchNorm3d(Cell):
    """MindSpore's ``nn.BatchNorm3d``: a BatchNorm2d (its child ``bn2d``, so the parameters
    are ``bn2d.gamma`` ...) over (N, C, D * H, W)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 moving_mean_init: Any = "zeros", moving_var_init: Any = "ones",
                 use_batch_statistics: bool | None = None, dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.num_features = num_features
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                dtype=dtype)

    def construct(self, x):
        shape = tuple(x.shape)
        if len(shape) != 5:
            raise ValueError(f"BatchNorm3d({self.num_features}): expected a 5-d NCDHW input, "
                             f"got {shape}")
        n, c, d, h, w = shape
        return ops.reshape(self.bn2d(ops.reshape(x, (n, c, d * h, w))), shape)
