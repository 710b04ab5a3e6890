"""``Model``: train, evaluate, predict and resume a network (MindSpore's ``Model``).

    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"accuracy"})
    model.train(3, train_loader, callbacks=[LossMonitor(100), ModelCheckpoint("lenet", "ckpt")])
    model.eval(test_loader)                          # {"accuracy": 0.98}
    model.fit(3, train_loader, test_loader, resume_from="last", callbacks=[...])

Datasets are ``framework.dataset`` pipelines (two columns: data, label),
``datasets.BatchIterator`` objects or any re-iterable of ``(x, y)`` NumPy batches. The
execution mode is ``ms.get_context("mode")`` when ``train``/``eval``/``predict`` runs,
unless ``Model(mode=...)`` fixes it.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import framework as ms
from framework import amp, nn
from framework.amp.build import level_config
from framework.amp.levels import cast_floats
from framework.serialization import CheckpointError

from .callbacks.base import Callback, CallbackList
from .callbacks.model_checkpoint import ModelCheckpoint, describe
from .checkpoint import CheckpointRead, TrainState, latest_valid, load_train_state
from .checkpoint import config_hash as hash_config
from .context import RunContext, mode_name
from .loop import TrainingInterrupted, dataset_size, iterate, run_training
from .metrics import build_metrics
from .step import Step, make_step

log = logging.getLogger(__name__)


class _EvalCell(nn.Cell):
    """``(loss, logits)`` of a batch; traced as one function in graph mode."""

    _paths_from = "_network"  # the profile names cells from the user's network

    def __init__(self, network: nn.Cell, loss_fn: nn.Cell, float32_outputs: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self._float32 = float32_outputs  # a low-precision network's logits in float32 (amp O2/O3)

    def construct(self, data, label):
        logits = self._network(data)
        if self._float32:
            logits = cast_floats(logits, ms.float32)
        return self._loss_fn(logits, label), logits


class _Forward(nn.Cell):
    _paths_from = "_network"

    def __init__(self, network: nn.Cell) -> None:
        super().__init__(auto_prefix=False)
        self._network = network

    def construct(self, data, label):
        return self._network(data)


def _value(result: Any) -> Any:
    """A metric's result: a float, or an array for per-class metrics (Precision, Recall, F1)."""
    array = np.asarray(result)
    return float(array) if array.size == 1 else array


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None)``.

    - With ``loss_fn`` and ``optimizer`` the train step is
      ``nn.TrainOneStepCell(nn.WithLossCell(network, loss_fn), optimizer)``; with only
      ``optimizer``, ``network(x, y)`` must return the loss.
    - ``metrics``: names (``{"accuracy", "loss"}``) or ``{name: Metric}``.
    - ``eval_network(x, y)`` may return ``(loss, logits, labels)`` (``nn.WithEvalCell``),
      ``(loss, logits)`` or ``logits``; by default it is ``network`` plus ``loss_fn``.
    - ``mode``: ``ms.GRAPH_MODE``/``ms.PYNATIVE_MODE`` (or ``"graph"``/``"pynative"``) to
      fix the mode instead of reading the context at each call.
    - ``amp_level`` (``"O0"``..``"O3"``), ``keep_batchnorm_fp32``, ``loss_scale_manager``
      (``ms.amp.FixedLossScaleManager``/``DynamicLossScaleManager``): mixed precision with
      MindSpore's meanings (``framework.amp.build``; O2 converts the network in place and
      defaults to dynamic loss scaling). With loss scaling the train step returns
      ``(loss, overflow, scale)``: an overflowing step changes no weight; the manager's
      ``update_loss_scale`` is told each step's overflow.
    - ``config`` (a dict) or ``config_hash``: the experiment config stored in checkpoints;
      resuming under another config warns with the keys that changed; ``config_defaults``
      (the schema's defaults): a key the checkpoint's config lacks and this one holds at
      its default is no change (a key added to the schema since); ``config_may_change``:
      keys (or prefixes ending in ``.``) a resume changes without a warning (a longer run).
    """

    def __init__(self, network: nn.Cell, loss_fn: nn.Cell | None = None, optimizer: Any = None,
                 metrics: Any = None, eval_network: nn.Cell | None = None, *, mode: int | str | None = None,
                 config: Mapping[str, Any] | None = None, config_hash: str | None = None,
                 config_defaults: Mapping[str, Any] | None = None, config_may_change: Sequence[str] = (),
                 **mindspore_options: Any) -> None:
        if not isinstance(network, nn.Cell):
            raise TypeError(f"Model: network must be an nn.Cell, got {type(network).__name__}")
        amp_level, amp_options = _amp_arguments(mindspore_options, optimizer)
        self.network = network
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.metrics = build_metrics(metrics)
        self.mode = mode_name(mode) if mode is not None else None
        self.config = dict(config) if config is not None else None
        self.config_hash = hash_config(self.config) if self.config is not None else config_hash
        self.config_defaults = config_defaults
        self.config_may_change = tuple(config_may_change)
        # how a run stopped by Ctrl-C is continued, in the caller's terms (a command line)
        self.resume_hint: str | None = None
        self.amp_level = amp_level
        self._build_train_network(amp_options)
        self.eval_network = eval_network if eval_network is not None else self._eval_network()
        self._steps: dict[tuple[int, str], Step] = {}
        # graph mode's dynamic axes without a signature (framework.train.step.CompiledStep):
        # True, the batch axis; "sequence", also the sequence axis of token ids (text)
        self.dynamic_axes: bool | str = True
        self.interrupted = False

    def _build_train_network(self, amp_options: dict[str, Any]) -> None:
        """The train step (none without an optimizer), in ``amp_level`` with its loss-scale
        manager (``level_config`` checks the options)."""
        self.train_network, self.loss_scale_manager = None, None
        config = level_config(self.amp_level, **amp_options)
        if self.optimizer is not None:
            self.loss_scale_manager = config["loss_scale_manager"]  # the one the step's scale follows
            amp_options["loss_scale_manager"] = self.loss_scale_manager
            self.train_network = amp.build_train_network(self.network, self.optimizer, self.loss_fn,
                                                         self.amp_level, **amp_options)

    def _eval_network(self) -> nn.Cell:
        low = ("O2", "O3")
        low_precision = self.amp_level in low or getattr(self.network, "_amp_level", "O0") in low
        if self.loss_fn is not None:
            return _EvalCell(self.network, self.loss_fn, float32_outputs=low_precision)
        return _Forward(self.network)

    # -- helpers -------------------------------------------------------------------------------
    def train_loss(self, out: Any) -> Any:
        """The loss of a train step's output; a loss-scaled step's ``(loss, overflow, scale)``
        also tells the manager whether the step overflowed (MindSpore's ``Model`` does)."""
        if not isinstance(out, tuple | list):
            return out
        manager = self.loss_scale_manager
        if manager is not None and manager.get_drop_overflow_update() and len(out) == 3:
            manager.update_loss_scale(bool(np.all(out[1].asnumpy())))
        return out[0]

    def current_mode(self) -> str:
        """``"graph"`` or ``"pynative"``: the fixed mode or the context's."""
        return self.mode or mode_name(ms.get_context("mode"))

    def _step_for(self, cell: nn.Cell, mode: str) -> Step:
        key = (id(cell), mode)
        if key not in self._steps:
            self._steps[key] = make_step(cell, mode, self.dynamic_axes)
        return self._steps[key]

    def _context(self, phase: str, **fields: Any) -> RunContext:
        return RunContext(phase=phase, mode=self.current_mode(), model=self, network=self.network,
                          train_network=self.train_network, optimizer=self.optimizer,
                          loss_fn=self.loss_fn, **fields)

    # -- training ------------------------------------------------------------------------------
    def train(self, epoch: int, train_dataset: Iterable[Any],
              callbacks: Callback | list[Callback] | None = None, dataset_sink_mode: bool = False,
              sink_size: int = -1, initial_epoch: int = 0,
              resume_from: str | Path | CheckpointRead | None = None) -> RunContext:
        """Train for ``epoch`` epochs in all (MindSpore's argument order; ``dataset_sink_mode``/
        ``sink_size`` are accepted and ignored: batches always go step by step). Returns the
        final run context."""
        return self._train(epoch, train_dataset, callbacks, initial_epoch, resume_from, None, 1)

    def fit(self, epoch: int, train_dataset: Iterable[Any], valid_dataset: Iterable[Any] | None = None,
            valid_frequency: int | list[int] = 1, callbacks: Callback | list[Callback] | None = None,
            dataset_sink_mode: bool = False, valid_dataset_sink_mode: bool = False, sink_size: int = -1,
            initial_epoch: int = 0, resume_from: str | Path | CheckpointRead | None = None) -> RunContext:
        """``train`` plus evaluation on ``valid_dataset`` every ``valid_frequency`` epochs (an int,
        or a list of epoch numbers); results appear as ``eval_<metric>`` in ``run_context.metrics``."""
        return self._train(epoch, train_dataset, callbacks, initial_epoch, resume_from, valid_dataset,
                           valid_frequency)

    def _train(self, epochs: int, dataset: Iterable[Any], callbacks: Any, initial_epoch: int,
               resume_from: str | Path | CheckpointRead | None, valid_dataset: Any,
               valid_frequency: Any) -> RunContext:
        if self.train_network is None:
            raise ValueError("Model.train needs an optimizer: Model(network, loss_fn, optimizer)")
        if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
            raise ValueError(f"Model.train: epoch must be an int >= 1, got {epochs!r}")
        if not 0 <= initial_epoch < epochs:
            raise ValueError(f"Model.train: initial_epoch must be in [0, {epochs}), got {initial_epoch}")
        if not hasattr(dataset, "__iter__") or iter(dataset) is dataset:
            raise TypeError("Model.train: train_dataset must be re-iterable (a BatchIterator, a list of "
                            "(x, y) batches ...), not a one-shot iterator or generator")
        cbs = CallbackList(callbacks)
        steps = dataset_size(dataset)
        ctx = self._context("train", epoch_num=epochs, steps_per_epoch=steps, train_dataset=dataset,
                            valid_dataset=valid_dataset, callbacks=cbs)
        start = (initial_epoch, 0)
        ctx.global_step = initial_epoch * (steps or 0)
        state = self._resume(resume_from, cbs, dataset)
        if state is not None:
            if initial_epoch:
                warnings.warn("Model.train: initial_epoch is ignored when resuming; the checkpoint "
                              "says where to continue", stacklevel=3)
            start = state.next_position()
            ctx.global_step = state.global_step
            ctx.resumed_from = state.path
            ctx.latest_checkpoint, ctx.latest_checkpoint_step = state.path, state.global_step
            ctx.epoch, ctx.step = state.epoch, state.step_in_epoch
            ctx.epoch_loss_sum = float(state.loop.get("epoch_loss_sum", 0.0))
            ctx.epoch_loss_count = int(state.loop.get("epoch_loss_count", 0))
            if start[0] >= epochs:
                warnings.warn(f"Model.train: {state.path} is already at epoch {state.epoch} of {epochs}; "
                              "nothing to train (ask for more epochs)", stacklevel=3)
                return ctx
            if state.mode != ctx.mode:
                log.info("resuming a %s-mode checkpoint in %s mode", state.mode, ctx.mode)
        self.train_network.set_train(True)
        self.interrupted = False
        try:
            return run_training(self, ctx, cbs, epochs, dataset, start, valid_dataset, valid_frequency)
        except TrainingInterrupted:
            self.interrupted = True
            raise

    def _resume(self, resume_from: str | Path | CheckpointRead | None, cbs: CallbackList,
                dataset: Any) -> TrainState | None:
        if resume_from is None:
            return None
        if isinstance(resume_from, CheckpointRead):
            source = resume_from
        elif str(resume_from) in ("last", "latest"):
            savers = cbs.of_type(ModelCheckpoint)
            if not savers:
                raise ValueError("resume_from='last' looks in the ModelCheckpoint directory, but no "
                                 "ModelCheckpoint callback was given; add one or pass a checkpoint path")
            found = latest_valid(savers[0].directory, savers[0].base_prefix, runs=True)
            if found is None:
                warnings.warn(f"resume_from='last': no valid {savers[0].base_prefix}-*.ckpt in "
                              f"{savers[0].directory}; starting from the beginning", stacklevel=4)
                return None
            source = found
        else:
            source = Path(resume_from)
        path = source.path if isinstance(source, CheckpointRead) else source
        state = load_train_state(source, self.train_network, config=self.config,
                                 expected_hash=self.config_hash, defaults=self.config_defaults,
                                 may_change=self.config_may_change,
                                 network_name=describe(self.network, self.optimizer),
                                 keep=getattr(self.optimizer, "hyper_params", tuple)())
        if state.data_state and hasattr(dataset, "load_state_dict"):
            try:
                dataset.load_state_dict(state.data_state)
            except ValueError as error:
                raise CheckpointError(f"{path}: the training data differs from the run that wrote it "
                                      f"({error}); resume with the same dataset settings") from None
        cbs.load_state_dict(state.callbacks)
        return state

    # -- evaluation ------------------------------------------------------------------------------
    def eval(self, valid_dataset: Iterable[Any], callbacks: Callback | list[Callback] | None = None,
             dataset_sink_mode: bool = False) -> dict[str, float]:
        """``{metric name: value}`` over ``valid_dataset`` (one pass)."""
        if not self.metrics:
            raise ValueError("Model.eval needs metrics: Model(..., metrics={'accuracy'})")
        return self._evaluate(valid_dataset, CallbackList(callbacks), None)

    def _evaluate(self, dataset: Iterable[Any], cbs: CallbackList, train_ctx: RunContext | None
                  ) -> dict[str, float]:
        steps = dataset_size(dataset)
        ctx = self._context("eval", steps_per_epoch=steps, valid_dataset=dataset, callbacks=cbs,
                            epoch=train_ctx.epoch if train_ctx else 0,
                            global_step=train_ctx.global_step if train_ctx else 0)
        step_fn = self._step_for(self.eval_network, ctx.mode)
        was_training = self.network.training
        self.eval_network.set_train(False)
        for metric in self.metrics.values():
            metric.clear()
        start = time.perf_counter()
        try:
            cbs.on_eval_begin(ctx)
            cbs.on_eval_epoch_begin(ctx)
            for x, y in iterate(dataset):
                ctx.batch_size = len(y)
                cbs.on_eval_step_begin(ctx)
                out, timing = step_fn(x, y)
                ctx.net_outputs = self._update_metrics(out, y)
                ctx.step += 1
                ctx.timings.step_seconds, ctx.timings.compile_seconds = timing.seconds, timing.compile_seconds
                cbs.on_eval_step_end(ctx)
                if ctx.stop_requested:
                    break
            ctx.metrics = {name: _value(metric.eval()) for name, metric in self.metrics.items()}
            ctx.timings.eval_seconds = time.perf_counter() - start
            cbs.on_eval_epoch_end(ctx)
            cbs.on_eval_end(ctx)
        finally:
            self.eval_network.set_train(was_training)
            if train_ctx is not None:
                self.train_network.set_train(True)
        if train_ctx is not None:
            train_ctx.timings.eval_seconds = ctx.timings.eval_seconds
        return ctx.metrics

    def _update_metrics(self, out: Any, labels: Any) -> Any:
        """Each metric's ``update`` with the values its ``indexes`` pick from ``(loss, logits,
        labels, batch_size)``: Tensors, as MindSpore's ``Model`` passes them (labels from the
        network's outputs, else the batch's as a Tensor). Returns the eval network's outputs
        as MindSpore's callbacks see them (``net_outputs``): the default eval network's are
        ``(loss, logits, labels)``."""
        items = out if isinstance(out, tuple | list) else (out,)
        if len(items) == 3:
            loss, logits, labels = items
        elif len(items) == 2:
            loss, logits = items
        else:
            loss, logits = None, items[0]
        size = len(labels)
        if not isinstance(labels, ms.Tensor):
            labels = ms.Tensor(np.asarray(labels))
        values = (loss, logits, labels, size)
        for name, metric in self.metrics.items():
            picked = [values[i] for i in metric.indexes]
            if any(v is None for v in picked):
                raise ValueError(f"metric {name!r} needs the loss: give Model a loss_fn (or an eval_network "
                                 "returning (loss, logits, labels))")
            metric.update(*picked)
        return (loss, logits, labels) if isinstance(self.eval_network, _EvalCell) else out

    # -- inference ----------------------------------------------------------------------------------
    def predict(self, *predict_data: Any) -> Any:
        """``network(*predict_data)`` in evaluation mode (compiled in graph mode)."""
        was_training = self.network.training
        self.network.set_train(False)
        try:
            out, _ = self._step_for(self.network, self.current_mode())(*predict_data)
        finally:
            self.network.set_train(was_training)
        return out


def _amp_arguments(options: Mapping[str, Any], optimizer: Any) -> tuple[str, dict[str, Any]]:
    """MindSpore's keyword arguments of ``Model``: ``(amp_level, its options)``; unknown ones
    and a ``boost_level`` other than O0 are refused, amp without an optimizer too."""
    unknown = set(options) - {"amp_level", "boost_level", "eval_indexes", "loss_scale_manager",
                              "keep_batchnorm_fp32"}
    if unknown:
        raise TypeError(f"Model: unknown argument(s) {', '.join(sorted(unknown))}")
    if options.get("boost_level", "O0") != "O0":
        raise ValueError(f"Model: boost_level={options['boost_level']!r} is not supported; leave it at 'O0'")
    amp_level = options.get("amp_level", "O0")
    amp_options = {k: options[k] for k in ("keep_batchnorm_fp32", "loss_scale_manager") if k in options}
    if optimizer is None and (amp_level != "O0" or amp_options.get("loss_scale_manager")):
        raise ValueError("Model: amp_level and loss_scale_manager need an optimizer: "
                         "Model(network, loss_fn, optimizer, amp_level=...)")
    return amp_level, amp_options
