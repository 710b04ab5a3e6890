"""Summary, assertion and device-placement primitive classes (``P.ScalarSummary()``,
``P.TensorSummary()``, ``P.ImageSummary()``, ``P.HistogramSummary()``, ``P.Assert()``,
``P.MoveTo()``).

A summary op records ``(name, value)`` for a summary collector; outside one, as MindSpore
2.10's CPU build does, it records nothing and returns None, in both modes — after checking
its arguments (a string name, a tensor value of the kind it summarizes), so a misuse fails
where it is written. ``MoveTo()(x, to='CPU', blocking=True)`` is ``ops.move_to``.
``Assert(summarize=3)(condition, input_data)`` (``input_data`` a tensor or a list of them) is
``framework/ops/debug.py``'s ``AssertOp``: a ``(1,)`` int32 tensor while ``condition`` holds;
a false one writes the first ``summarize`` entries of each input and raises RuntimeError, in
PyNative at once and in graph mode when the compiled code reaches it.
"""

from __future__ import annotations

from typing import Any

from .. import functional as ops
from .._class_form import class_form
from .._utils import argument_error


def _summary(op: str, ranks: str, check: Any) -> Any:
    def call(name: Any, value: Any) -> None:
        if not isinstance(name, str) or not name:
            raise argument_error(op, TypeError(f"the name must be a non-empty string, got {name!r}"))
        if not hasattr(value, "shape") or not check(len(value.shape)):
            raise argument_error(op, ValueError(f"the value must be a tensor of {ranks}, got {value!r}"))
        return None
    call.__name__ = op
    return call


ScalarSummary = class_form("ScalarSummary", _summary("ScalarSummary", "rank 0 or 1", lambda r: r <= 1))
TensorSummary = class_form("TensorSummary", _summary("TensorSummary", "any rank", lambda r: True))
ImageSummary = class_form("ImageSummary", _summary("ImageSummary", "rank 4 (NCHW)", lambda r: r == 4))
HistogramSummary = class_form("HistogramSummary", _summary("HistogramSummary", "any rank", lambda r: True))
MoveTo = class_form("MoveTo", lambda x, to="CPU", blocking=True: ops.move_to(x, to, blocking))



def _assert(condition: Any, input_data: Any, *, summarize: int) -> Any:
    from ..debug import AssertOp

    data = list(input_data) if isinstance(input_data, list | tuple) else [input_data]
    return AssertOp(summarize)(condition, *data)


Assert = class_form("Assert", _assert, summarize=3)

__all__ = ["ScalarSummary", "TensorSummary", "ImageSummary", "HistogramSummary", "MoveTo", "Assert"]
