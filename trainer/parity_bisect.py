"""The parity bisect of ``train compare``: where graph mode and PyNative part.

When the parity check fails, :func:`bisect_modes`

1. rebuilds the experiment twice from its seed (one model per mode, the same initial
   Parameters) and trains both **in lockstep** on the same batches, each mode with its own
   copy of the framework's random state (so each draws the dropout masks its recorded run
   drew), up to the first step whose two losses leave the tolerance of
   :func:`trainer.compare.parity` (``|a - b| <= atol + rtol * |a|``, ``a`` the first mode's);
   at most up to the step where the recorded runs left it (when the lockstep has not left
   it by then, that step is bisected and the report says so);
2. at that step, puts the PyNative model back to its state before the step (Parameters,
   optimizer state and random state), traces its train step as graph mode does, and asks
   :func:`framework.node_parity.node_parity` which IR node's compiled output first differs
   from the NumPy kernel's beyond float rounding, from that one state (the module
   docstring there defines the budget and how control flow is treated).

The result, :class:`Bisect`, prints as the lines under ``train compare``'s table and is
logged to the parent MLflow run (tags ``parity_bisect*`` and ``parity_bisect.json``:
trainer/compare_report.py). A step where no node is beyond rounding means the gap is
rounding accumulated over the steps before it, which the report says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import framework as ms
from framework import seed
from framework.node_parity import FLOOR_ULPS, NUMPY_FACTOR, NodeCheck, NodeParity, node_parity
from framework.train.loop import iterate
from framework.train.step import make_step

from .build import build_model_for
from .config import ExperimentConfig
from .distributed import Rank
from .tasks import task_of


@dataclass
class Bisect:
    """Where the modes part: the step, the losses there, the first node beyond rounding."""

    step: int  # the step bisected (global, from 1)
    left_tolerance: bool  # whether the lockstep losses left the tolerance at ``step``
    recorded_step: int | None  # the step where the recorded runs left it
    losses: dict[str, float]  # mode -> its lockstep loss at ``step``
    nodes: NodeParity

    @property
    def first(self) -> NodeCheck | None:
        return self.nodes.first

    def text(self) -> list[str]:
        a, b = self.losses.values()
        modes = " vs ".join(f"{m} {v:.6g}" for m, v in self.losses.items())
        if self.left_tolerance:
            head = f"parity bisect: in lockstep the modes leave the tolerance at step {self.step} ({modes})"
        else:
            head = (f"parity bisect: in lockstep the modes stay within the tolerance up to step {self.step}, "
                    f"where the recorded runs left it; bisecting that step ({modes})")
        lines = [head]
        n = self.nodes
        compared = len({c.index for c in n.checks})
        if self.first is None:
            lines.append(f"  no node of the step's graph differs beyond float rounding from the same state "
                         f"({compared} of {n.nodes} nodes compared): the gap is rounding accumulated "
                         f"over the steps before it (|diff| {abs(a - b):.3g})")
        else:
            lines.append("  first node beyond float rounding, from the same state:")
            lines += [f"    {line}" for line in self.first.lines()]
            beyond = len({c.index for c in n.beyond})
            lines.append(f"  ({beyond} of {compared} compared nodes beyond it; each "
                         "node fed the compiled values of its inputs; budget: the larger of "
                         f"{NUMPY_FACTOR:g} x NumPy's own float error and {FLOOR_ULPS:g} ulps)")
        if n.skipped:
            kinds = sorted({p for _, p, _ in n.skipped})
            lines.append(f"  not compared: {len(n.skipped)} node(s) ({', '.join(kinds)}): host-random, "
                         "prints, fed a NaN, or kernels that refused the compiled inputs "
                         "(parity_bisect.json)")
        return lines

    def tags(self) -> dict[str, str]:
        first = self.first
        if first is None:
            return {"parity_bisect": f"step {self.step}: no node beyond float rounding"}
        return {"parity_bisect": f"step {self.step}: node {first.index} {first.prim} at {first.location}",
                "parity_bisect_location": first.location, "parity_bisect_step": str(self.step),
                "parity_bisect_node": f"{first.index} {first.prim}", "parity_bisect_cell": first.cell}

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "left_tolerance": self.left_tolerance,
                "recorded_step": self.recorded_step, "losses": self.losses,
                "tolerance": {"numpy_factor": NUMPY_FACTOR, "floor_ulps": FLOOR_ULPS},
                **self.nodes.as_dict()}


@dataclass
class _Lane:
    """One mode of the lockstep: its model, step function and random state."""

    mode: str
    model: Any
    step: Any
    rng: dict[str, Any]

    def run(self, x: Any, y: Any) -> float:
        seed.set_rng_state(self.rng)
        out, _ = self.step(x, y)
        loss = float(np.asarray(self.model.train_loss(out).asnumpy()))
        self.rng = seed.get_rng_state()
        return loss


def _lane(config: ExperimentConfig, data: Any, mode: str) -> _Lane:
    model, _ = build_model_for(config, data)  # seeds: every lane starts from the same Parameters
    model.train_network.set_train(True)
    return _Lane(mode, model, make_step(model.train_network, mode), seed.get_rng_state())


def _params(model: Any) -> list[Any]:
    seen: dict[int, Any] = {}
    for _, p in model.train_network.parameters_and_names():
        seen.setdefault(id(p), p)
    return list(seen.values())


def _batches(config: ExperimentConfig, data: Any) -> Any:
    """``(step, x, y)`` over the experiment's epochs, as the training loop sees them."""
    step = 0
    for _ in range(max(task_of(config).epochs(config), 1)):
        for x, y in iterate(data.train):
            step += 1
            yield step, x, y


def bisect_modes(config: ExperimentConfig, modes: list[str], until: int | None, rtol: float,
                 atol: float) -> Bisect:
    """Lockstep ``modes`` (graph and pynative; the first is the parity's reference) to the
    first step out of tolerance (at most ``until``, where the recorded runs left it); the
    first node beyond float rounding at that step (module docstring)."""
    if sorted(modes) != ["graph", "pynative"]:
        raise ValueError(f"the parity bisect compares graph with pynative, got {', '.join(modes)}")
    ms.set_context(save_graphs=False, device_target="GPU" if config.device == "cuda" else "CPU")
    outer = seed.get_rng_state()
    try:
        data = task_of(config).data(config, Rank())
        lanes = [_lane(config, data, mode) for mode in modes]
        return _lockstep(lanes, _batches(config, data), until, rtol, atol)
    finally:
        seed.set_rng_state(outer)


def _lockstep(lanes: list[_Lane], batches: Any, until: int | None, rtol: float, atol: float) -> Bisect:
    eager = next(lane for lane in lanes if lane.mode == "pynative")
    params = _params(eager.model)
    for step, x, y in batches:
        before = [(p, np.array(p.asnumpy(), copy=True)) for p in params], eager.rng
        losses = {lane.mode: lane.run(x, y) for lane in lanes}
        a, b = losses.values()
        out = not abs(a - b) <= atol + rtol * abs(a)  # NaN counts as out
        if out or (until is not None and step >= until):
            return Bisect(step, out, until, losses, _nodes(eager, before, x, y))
    raise ValueError("parity bisect: the data ran out before the modes left the tolerance")


def _nodes(eager: _Lane, before: tuple, x: Any, y: Any) -> NodeParity:
    """The PyNative model back at its state before the step; its train step node by node."""
    state, rng = before
    with ms.pynative():
        for p, array in state:
            p.set_data(ms.Tensor(array))
    seed.set_rng_state(rng)
    return node_parity(eager.model.train_network, x, y)

