"""``mindspore.nn.wrap.grad_reducer``: ``DistributedGradReducer`` under MindSpore's module path
(``from mindspore.nn.wrap.grad_reducer import DistributedGradReducer``); it lives in
:mod:`framework.nn.distributed`."""

from ..distributed import DistributedGradReducer

__all__ = ["DistributedGradReducer"]
