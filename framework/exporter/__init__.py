"""``ms.export``: a network out to a deployment format (ONNX; MindSpore's MINDIR is written by
:mod:`framework.mindir`).

``export(net, *inputs, file_name, file_format="ONNX", batch_axis=0)`` traces ``net`` in eval
mode on the sample ``inputs`` with graph mode's tracer (our IR, :mod:`.capture`), maps each
primitive to ONNX nodes (:mod:`.onnx_ops`, :mod:`.onnx_nn`; ONNX opset 18,
:data:`.onnx_model.OPSET`) and writes ``file_name`` (``.onnx`` appended when missing, as
MindSpore does) through the ``onnx`` package. The batch axis (axis 0 of every input by
default; ``batch_axis=1`` for a sequence-first recurrent layer, one entry per input,
``None``: a fixed batch) is symbolic in the file, so one file serves any batch size. In
the file the tensor arguments are the inputs ``input_0``, ``input_1`` ... (``None``
arguments are skipped), the returned tensors (flattened) the outputs ``output_0`` ..., and
the Parameters initializers under their names.

The contract between the IR and the exporter: the exporter reads a traced, optimized
``Graph`` (PARAM inputs, then one INPUT per tensor argument; nodes in order; the user's
outputs only) whose nodes apply registered primitives with static shapes; per primitive
class, one converter builds ONNX nodes from the node's attributes and the Specs of its
inputs and outputs (:mod:`.onnx_context`). Control flow on tensors (``If``/``While``
regions), random draws and training-only primitives have no converter: the export stops
with one line naming the primitive and the user's source line.

Package named ``exporter`` (not ``export``) so that ``framework.export`` stays the function.
"""

from __future__ import annotations

import os
from typing import Any

from .._io import atomic_write
from .capture import BatchDim, Captured, ExportError, capture

FORMATS = ("ONNX", "MINDIR")
_REFUSED = {"AIR": "Ascend's AIR"}


def export(net: Any, *inputs: Any, file_name: str | os.PathLike, file_format: str = "ONNX",
           batch_axis: Any = 0, **kwargs: Any) -> str:
    """Write ``net`` as an ONNX model traced on ``inputs``; returns the file's path."""
    fmt = str(file_format).upper()
    if fmt in _REFUSED:
        raise ExportError(f"export: file_format={file_format!r} ({_REFUSED[fmt]}) is not supported "
                          "here; twinmode exports ONNX and MINDIR: use file_format='ONNX' or 'MINDIR'")
    if fmt not in FORMATS:
        raise ExportError(f"export: unknown file_format {file_format!r}; use file_format='ONNX' "
                          "or 'MINDIR'")
    if kwargs:
        raise TypeError(f"export: unexpected keyword(s) {', '.join(sorted(kwargs))}")
    if not inputs:
        raise ExportError("export: give sample inputs, as in ms.export(net, x, file_name=...)")
    if fmt == "MINDIR":  # framework/mindir (batch_axis: MindSpore re-infers shapes per call)
        from ..mindir import export_mindir

        return export_mindir(net, inputs, file_name)
    model = model_proto(net, *inputs, batch_axis=batch_axis)
    path = os.fspath(file_name)
    path = path if path.lower().endswith(".onnx") else f"{path}.onnx"
    atomic_write(os.path.abspath(path), model.SerializeToString())
    return path


def model_proto(net: Any, *inputs: Any, batch_axis: Any = 0) -> Any:
    """The ``onnx.ModelProto`` of ``net`` traced on ``inputs`` (what :func:`export` writes)."""
    try:
        from .onnx_model import to_onnx
    except ImportError as error:
        raise ImportError(f"export: file_format='ONNX' needs the onnx package ({error}); install "
                          "it with `pip install onnx` (or the project's extra: "
                          "`pip install twinmode[export]`)") from None
    return to_onnx(capture(net, inputs, batch_axis))


__all__ = ["BatchDim", "Captured", "ExportError", "capture", "export", "model_proto"]
