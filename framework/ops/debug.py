"""Printing from inside a network: ``ops.Print`` and graph mode's runtime ``print``.

``PrintOp(template)`` applied to tensors prints ``template.format(*values)`` each time it
runs: at once in PyNative, and in graph mode each time the compiled code reaches it (in
program order, inside branches only when taken, once per iteration in loops). It has no
outputs and is never folded, merged or dropped (``side_effect``).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..primitive import Primitive


def render(array: Any) -> str:
    """How a printed tensor looks: as ``str(tensor)`` in PyNative (NumPy's format)."""
    return str(np.asarray(array))


class PrintOp(Primitive, abstract=True):
    side_effect = True
    differentiable = False
    num_outputs = 0

    def __init__(self, template: str) -> None:
        super().__init__(template=template)

    def infer(self, *inputs: Any) -> tuple:
        return ()

    def kernel(self, *arrays: np.ndarray) -> tuple:
        sys.stdout.write(self.template.format(*[render(a) for a in arrays]))
        sys.stdout.flush()
        return ()

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        return (None,) * len(inputs)


def _template(args: tuple, sep: str, end: str) -> tuple[str, list[Any]]:
    from ..tensor import Tensor

    parts, tensors = [], []
    for arg in args:
        if isinstance(arg, Tensor):
            parts.append("{}")
            tensors.append(arg)
        else:
            parts.append(str(arg).replace("{", "{{").replace("}", "}}"))
    return sep.join(parts) + end, tensors


def runtime_print(args: tuple, sep: str = " ", end: str = "\n") -> None:
    template, tensors = _template(args, sep, end)
    PrintOp(template)(*tensors)


class Print:
    """``ops.Print()(*inputs)``: prints strings and tensors (each on its own line, as
    MindSpore's Print does) when it runs, in both modes."""

    def __call__(self, *inputs: Any) -> None:
        runtime_print(inputs, sep="\n", end="\n")
