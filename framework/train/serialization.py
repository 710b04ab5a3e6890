"""``mindspore.train.serialization``: checkpoints and ``export`` under MindSpore's module
path (``from mindspore.train.serialization import load_checkpoint, export``). A thin
re-export: checkpoints live in :mod:`framework.serialization`, ``export`` (ONNX) in
:mod:`framework.exporter`."""

from ..exporter import export
from ..serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["export", "load_checkpoint", "load_param_into_net", "save_checkpoint"]
