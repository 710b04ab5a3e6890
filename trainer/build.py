"""The model an experiment trains, from its config: the network and loss of its task
(trainer/tasks/) with the optimizer (trainer/registry.py) and the learning rate
(trainer/schedule.py), in a ``Model`` of the config's mode."""

from __future__ import annotations

import random

import numpy as np

import framework as ms
from framework import nn
from framework.train.model import Model

from .config import ConfigError, ExperimentConfig
from .config_checks import precision_problem
from .registry import build_optimizer
from .run_folders import RESUMABLE
from .schedule import optimizer_lr
from .tasks import TaskData, task_of


def build_model_for(config: ExperimentConfig, data: TaskData | None = None) -> tuple[Model, nn.Cell]:
    """Network, loss and optimizer of the config's task (parameters drawn from ``seed``);
    ``data`` (the task's, trainer/tasks/) gives what the network needs of it (a vocabulary)
    and the steps of an epoch that size an ``optimizer.schedule`` (without: 1)."""
    task = task_of(config)
    ms.set_seed(config.seed)
    # NumPy's and Python's global generators too (MindSpore's set_seed seeds numpy.random;
    # user code may draw from either): every generator a checkpoint restores then starts
    # from the seed, so a resumed run ends in the uninterrupted run's state, not in one
    # drawn from the first process's entropy
    np.random.seed(config.seed)
    random.seed(config.seed)
    net = task.network(config, data)
    loss = task.loss(config)
    o = config.optimizer
    params = net.trainable_params()
    if o.exclude_bias_and_norm and o.weight_decay:  # MindSpore's group params
        plain = [p for p in params if p.name.endswith("bias") or "gamma" in p.name
                 or "beta" in p.name]
        decay = [p for p in params if all(p is not q for q in plain)]
        params = [{"params": decay, "weight_decay": o.weight_decay}, {"params": plain,
                  "weight_decay": 0.0}, {"order_params": net.trainable_params()}]
    accumulate = config.train.accumulate_grad_batches
    steps = (data.steps_per_epoch if data is not None else None) or 1
    lr = optimizer_lr(o.schedule, o.learning_rate, task.epochs(config), steps, accumulate, task.by_steps)
    opt = build_optimizer(params, o, lr)
    net, amp_options = _precision(config, net)
    model = Model(net, loss, opt, metrics=set(task.metrics), config=config.to_dict(), mode=config.mode,
                  config_defaults=type(config)().to_dict(), config_may_change=RESUMABLE, **amp_options)
    model.dynamic_axes = task.dynamic_axes
    if accumulate > 1:
        from framework.train.train_cells import AccumulateTrainOneStepCell

        model.train_network = AccumulateTrainOneStepCell(nn.WithLossCell(net, loss), opt,
                                                         accumulate, o.clip_grad_norm)
    elif o.clip_grad_norm is not None:
        from framework.train.train_cells import ClipGradTrainOneStepCell

        model.train_network = ClipGradTrainOneStepCell(nn.WithLossCell(net, loss), opt,
                                                       o.clip_grad_norm)
    return model, net


def _precision(config: ExperimentConfig, net: nn.Cell) -> tuple[nn.Cell, dict]:
    """``precision: bf16|fp16``: MindSpore's O2 in that dtype (float32 master weights, the
    same Parameters, float32 outputs) with dynamic loss scaling; fp32: as it is."""
    if config.precision == "fp32":
        return net, {}
    refused = precision_problem(config)  # (load_config refuses it first, naming the file's line)
    if refused:
        raise ConfigError(refused[1])
    dtype = ms.bfloat16 if config.precision == "bf16" else ms.float16
    return (ms.amp.auto_mixed_precision(net, "O2", dtype),
            {"loss_scale_manager": ms.amp.DynamicLossScaleManager()})
