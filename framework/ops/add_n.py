"""``AddN()(inputs)`` / ``addn``: MindSpore's sum of a tuple of tensors, a composite of ``Add``
(it runs, traces and differentiates as ``Add`` does)."""

from __future__ import annotations

from typing import Any

from ._class_form import NoAttributes
from ._utils import argument_error
from .elementwise import add


class AddN(NoAttributes):
    """``AddN()(inputs)``: the sum of a tuple/list of tensors of one shape (MindSpore's
    ``ops.AddN``), built from ``Add`` so it runs, traces and differentiates like it."""

    def __call__(self, inputs: Any) -> Any:
        inputs = tuple(inputs)
        if not inputs:
            raise ValueError("AddN: needs at least one input")
        shapes = {tuple(t.shape) for t in inputs}
        if len(shapes) > 1:
            raise argument_error("AddN", ValueError(
                "inputs must have one shape, got " + ", ".join(str(s) for s in shapes)))
        total = inputs[0]
        for t in inputs[1:]:
            total = add(total, t)
        return total


def addn(inputs):
    return AddN()(inputs)
