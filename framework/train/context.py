"""The run context every callback receives: where training is, what it measured, how to stop.

``RunContext`` is one typed object (MindSpore splits it into ``RunContext`` and the
``cb_params`` that ``run_context.original_args()`` returns; here ``original_args()``
returns the context itself and the MindSpore attribute names are properties).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import framework as ms

MODE_NAMES = {ms.GRAPH_MODE: "graph", ms.PYNATIVE_MODE: "pynative"}


def mode_name(mode: int | str) -> str:
    """``"graph"`` or ``"pynative"`` for ``ms.GRAPH_MODE``/``ms.PYNATIVE_MODE`` or either name."""
    if isinstance(mode, str):
        name = mode.lower()
        if name in MODE_NAMES.values():
            return name
    elif mode in MODE_NAMES:
        return MODE_NAMES[mode]
    raise ValueError(f"mode must be ms.GRAPH_MODE, ms.PYNATIVE_MODE, 'graph' or 'pynative', got {mode!r}")


@dataclass
class Timings:
    """Wall-clock measurements, in seconds.

    ``step_seconds`` is the last step's run time *without* compilation; a step that
    traced and compiled a new graph (graph mode: the first step, or a new batch shape)
    reports that separately in ``compile_seconds`` (0.0 for other steps).
    ``first_compile_seconds`` keeps the first compilation of the run (None in PyNative).

    ``step_wall_seconds`` is the one speed figure every report uses (progress bar,
    TimeMonitor, MLflow ``perf/*``, run summaries): the wall-clock time from the end of
    the previous step (or the start of the epoch) to the end of this one, data loading
    and the previous step's callbacks included, compilation excluded. ``epoch_wall_seconds``
    and ``epoch_samples`` sum it and the batch sizes over the steps this process ran in
    the epoch, so ms/step = epoch_wall_seconds / epoch_steps_run and samples/s =
    epoch_samples / epoch_wall_seconds.
    """

    step_seconds: float = 0.0
    compile_seconds: float = 0.0
    compile_cache_hit: bool | None = None
    compile_stages: dict[str, float] | None = None  # stage -> seconds of the last compilation
    first_compile_seconds: float | None = None
    epoch_seconds: float = 0.0
    epoch_step_seconds: float = 0.0  # sum of step_seconds in this epoch (compile excluded)
    epoch_steps_run: int = 0  # steps this process ran in this epoch (fewer after a resume)
    epoch_compile_seconds: float = 0.0
    step_wall_seconds: float = 0.0
    epoch_wall_seconds: float = 0.0
    epoch_samples: int = 0
    train_seconds: float = 0.0
    eval_seconds: float = 0.0


@dataclass
class RunContext:
    """State of a train/eval run, passed to every callback hook.

    ``epoch`` is 1-based (the epoch being run); ``step`` counts the steps done in this
    epoch and ``global_step`` those done since the start of training (both count the
    steps before a resume). ``metrics`` holds ``loss`` (the mean training loss of the
    epoch so far) and, after a validation, ``eval_<name>`` values.
    """

    phase: str = "train"  # "train" or "eval"
    mode: str = "pynative"
    epoch: int = 0
    epoch_num: int = 0
    step: int = 0
    steps_per_epoch: int | None = None
    global_step: int = 0
    batch_size: int = 0
    loss: float | None = None
    # the last step's outputs as MindSpore's ``cb_params.net_outputs``: the train network's
    # (the loss Tensor; (loss, overflow, scale) with loss scaling), in evaluation the eval
    # network's (``(loss, logits, labels)`` Tensors by default)
    net_outputs: Any = field(default=None, repr=False)
    metrics: dict[str, float] = field(default_factory=dict)
    # texts a callback made this epoch (artifact path -> text, e.g. a language model's sample
    # ``samples/step_250.txt``): a logger records them at the epoch's end and clears them
    texts: dict[str, str] = field(default_factory=dict)
    timings: Timings = field(default_factory=Timings)
    latest_checkpoint: str | None = None
    latest_checkpoint_step: int | None = None  # the global step latest_checkpoint holds
    resumed_from: str | None = None
    interrupted: bool = False
    data_state: dict[str, Any] | None = None  # the training data's position after the last step
    epoch_loss_sum: float = 0.0  # running sum and count behind metrics["loss"]
    epoch_loss_count: int = 0
    model: Any = field(default=None, repr=False)
    network: Any = field(default=None, repr=False)
    train_network: Any = field(default=None, repr=False)
    optimizer: Any = field(default=None, repr=False)
    loss_fn: Any = field(default=None, repr=False)
    train_dataset: Any = field(default=None, repr=False)
    valid_dataset: Any = field(default=None, repr=False)
    callbacks: list[Any] = field(default_factory=list, repr=False)
    _stop: bool = field(default=False, repr=False)

    # -- control ---------------------------------------------------------------------------
    def request_stop(self) -> None:
        """Stop after the current step (training) or batch (evaluation)."""
        self._stop = True

    def get_stop_requested(self) -> bool:
        return self._stop

    @property
    def stop_requested(self) -> bool:
        return self._stop

    def original_args(self) -> RunContext:
        """MindSpore's ``cb_params``: here the context itself."""
        return self

    def get(self, key: str, default: Any = None) -> Any:
        """``cb_params.get("cur_epoch_num", 1)``: an attribute by name, else ``default``."""
        return getattr(self, key, default)

    # -- MindSpore attribute names ----------------------------------------------------------
    @property
    def cur_epoch_num(self) -> int:
        return self.epoch

    @property
    def cur_step_num(self) -> int:
        return self.global_step

    @property
    def batch_num(self) -> int | None:
        return self.steps_per_epoch

    @property
    def step_in_epoch(self) -> int:
        return self.step
