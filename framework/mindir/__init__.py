"""MindSpore's MindIR format: ``ms.export(net, x, file_name=..., file_format="MINDIR")``
writes one, ``ms.load(file_name)`` reads one and ``nn.GraphCell(graph)`` runs it.

A MindIR file is a protobuf ``ModelProto`` (:mod:`.schema`): a graph of nodes applying
MindSpore primitives by name with their attributes, the weights as tensors, and a table of
primitives. Files are read and written with a small wire codec (:mod:`.wire`), no
``protobuf`` package.

- Export (:mod:`.writer`): the network is traced in eval mode into our IR (the ONNX
  exporter's :func:`framework.exporter.capture`), and each primitive is written as the
  MindSpore primitive(s) with its inputs and attributes as MindSpore 2.10 writes them
  (:data:`.writer.CONVERTERS`, with :mod:`.writer_transformer_ops`), so MindSpore's ``load`` +
  ``GraphCell`` runs the file, at the exported batch size or another. Checked against
  MindSpore 2.10 for the tutorials' MLP and LeNet-5, ResNet-20, MobileNetV2 and networks of
  convolutions (pad/same/strided/grouped), pooling, BatchNorm, LayerNorm, activations,
  arithmetic, reductions, comparisons, Select, slicing, gathering, reshapes and casts. A
  network using a primitive without a conversion is refused with one line naming it.
- Load (:mod:`.model`, :mod:`.runner`): :func:`load` decodes the file into a
  :class:`MindIRGraph`; :class:`framework.nn.GraphCell` runs its nodes with our ops, in both
  modes (:data:`.runner.OPS`, with :mod:`.runner_transformer_ops`; single-graph files only: control
  flow, which MindSpore writes as extra function graphs, is refused). A file with a node
  whose op has no entry there, or a bad, cut or foreign file, is refused with one line
  naming the file (and the op).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .model import MindIRError, MindIRModel, read_model


@dataclass
class MindIRGraph:
    """What :func:`load` returns: a decoded MindIR model, ready for ``nn.GraphCell``."""

    model: MindIRModel

    def __repr__(self) -> str:
        return f"MindIRGraph({self.model.name!r}, {len(self.model.nodes)} nodes, from {self.model.path!r})"


def load(file_name: str | os.PathLike, **kwargs: Any) -> MindIRGraph:
    """MindSpore's ``load``: the graph in the MindIR file ``file_name``, for ``nn.GraphCell``."""
    from .runner import check_ops

    unsupported = set(kwargs) - {"dec_key", "dec_mode", "obf_func"}
    if unsupported:
        raise TypeError(f"load: unexpected keyword(s) {', '.join(sorted(unsupported))}")
    if kwargs.get("dec_key") is not None:
        raise MindIRError("load: encrypted MindIR files (dec_key) are not supported")
    path = os.fspath(file_name)
    if not path.lower().endswith(".mindir"):
        raise MindIRError(f"load: {path!r} is not a MindIR file name (MindSpore's load reads "
                          "'.mindir' files)")
    if not os.path.isfile(path):
        raise MindIRError(f"load: MindIR file {path!r} does not exist")
    model = read_model(path)
    check_ops(model)
    return MindIRGraph(model)


def export_mindir(net: Any, inputs: tuple[Any, ...], file_name: str | os.PathLike) -> str:
    """Write ``net`` traced on ``inputs`` as ``file_name`` (``.mindir`` appended when missing)."""
    from .._io import atomic_write
    from ..exporter.capture import capture
    from .writer import to_mindir

    data = to_mindir(capture(net, inputs, 0))
    path = os.fspath(file_name)
    path = path if path.lower().endswith(".mindir") else f"{path}.mindir"
    atomic_write(os.path.abspath(path), data)
    return path


__all__ = ["MindIRError", "MindIRGraph", "export_mindir", "load"]
