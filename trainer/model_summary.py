"""The model summary a run prints before it trains, as Keras' ``model.summary()`` and
Lightning's ``ModelSummary`` do: the network's cells to depth 2 with their type, output
shape and parameter count, then the totals (shared parameters counted once, float32
size).

Output shapes come from one eager forward pass of two samples (the task's
``summary_input``), in evaluation mode, observed with forward hooks
(``Cell.register_forward_hook``): no BatchNorm statistic moves and nothing random is drawn,
so a run with the summary trains exactly as one without. A cell the forward pass does not
call (a container) shows ``-``.

A network in mixed precision (``precision: bf16|fp16``, amp O2) is shown as the user wrote
it: the cast wrappers amp puts around the network and its BatchNorm/LayerNorm cells are
left out, each wrapped cell under the wrapper's name (the rows of the float32 run).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from framework.amp.levels import user_cell

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


def user_cells(net: Any, prefix: str = "", depth: int = MAX_DEPTH,
               seen: set[int] | None = None) -> list[tuple[str, Any]]:
    """``(dotted name, cell)`` of the cells inside ``net`` to ``depth``, in order, each once,
    an amp cast wrapper replaced by the cell it wraps (under the wrapper's name)."""
    seen = {id(user_cell(net))} if seen is None else seen
    out: list[tuple[str, Any]] = []
    for name, child in user_cell(net)._cells.items():
        child = user_cell(child)
        if child is None or id(child) in seen:
            continue
        seen.add(id(child))
        full = f"{prefix}.{name}" if prefix else name
        out.append((full, child))
        if depth > 1:
            out.extend(user_cells(child, full, depth - 1, seen))
    return out


def summary_rows(net: Any, x: np.ndarray) -> list[tuple[str, str, str, int]]:
    """``(name, type, output shape, parameters)`` of the cells to depth 2, in order."""
    import framework as ms

    cells = user_cells(net)
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
    return "\n".join([f"model: {type(user_cell(net)).__name__}, input {_shape(x, len(x))}", *lines,
                      f"  {trainable:,} trainable parameters ({total:,} in all, "
                      f"{total * 4 / 1e6:.2f} MB as float32)"])
