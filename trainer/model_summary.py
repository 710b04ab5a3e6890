"""The model summary a run prints before it trains, as Keras' ``model.summary()`` and
Lightning's ``ModelSummary`` do: the network's cells to depth 2 with their type, output
shape and parameter count, then the totals (shared parameters counted once, float32
size).

Output shapes come from one eager forward pass of two samples (the task's
``summary_input``), in evaluation mode, observed with forward hooks
(``Cell.register_forward_hook``): no BatchNorm statistic moves and nothing random is drawn,
so a run with the summary trains exactly as one without. A cell the forward pass does not
call (a container) shows ``-``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_DEPTH = 2


def _count(params: Any) -> int:
    seen: dict[int, int] = {}
    for p in params:
        seen[id(p)] = int(np.prod(p.shape))
    return sum(seen.values())


def _shape(out: Any, batch: int) -> str:
    """``(N, 6, 28, 28)``: the batch axis (a first axis of ``batch``) shown as N."""
    if isinstance(out, tuple | list):
        return ", ".join(_shape(o, batch) for o in out)
    shape = [str(d) for d in getattr(out, "shape", ())]
    if shape and shape[0] == str(batch):
        shape[0] = "N"
    return "(" + ", ".join(shape) + ")"


def summary_rows(net: Any, x: np.ndarray) -> list[tuple[str, str, str, int]]:
    """``(name, type, output shape, parameters)`` of the cells to depth 2, in order."""
    import framework as ms

    cells = [(name, cell) for name, cell in net.cells_and_names()
             if name and name.count(".") < MAX_DEPTH]
    shapes: dict[int, str] = {}

    def record(cell: Any, _args: Any, out: Any) -> None:
        shapes[id(cell)] = _shape(out, len(x))

    handles = [cell.register_forward_hook(record) for _, cell in cells]
    was_training = net.training
    try:
        net.set_train(False)
        with ms.pynative():
            net(ms.Tensor(x))
    finally:
        net.set_train(was_training)
        for handle in handles:
            handle.remove()
    return [(name, type(cell).__name__, shapes.get(id(cell), "-"), _count(cell.trainable_params()))
            for name, cell in cells]


def model_summary(net: Any, x: np.ndarray) -> str:
    rows = summary_rows(net, x)
    cells = [("name", "type", "output shape"), *((r[0], r[1], r[2]) for r in rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(3)]
    params = ["params", *(f"{r[3]:,}" for r in rows)]
    lines = [f"  {a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {p:>10}"
             for (a, b, c), p in zip(cells, params)]
    trainable, total = _count(net.trainable_params()), _count(net.get_parameters())
    return "\n".join([f"model: {type(net).__name__}, input {_shape(x, len(x))}", *lines,
                      f"  {trainable:,} trainable parameters ({total:,} in all, "
                      f"{total * 4 / 1e6:.2f} MB as float32)"])
