"""``task: classification`` (the default): images (or the user's arrays/pipeline) with
integer labels, trained for ``train.epochs``; accuracy and loss on the test split, train
accuracy on a fixed subset; the served model takes images and gives logits."""

from __future__ import annotations

from typing import Any

import numpy as np

import datasets
from framework.train.callbacks import Callback
from framework.train.context import RunContext
from framework.train.loop import dataset_size
from framework.train.model import Model

from ..data import ARRAY_SOURCES, TRAIN_EVAL_SAMPLES, custom_loaders, transforms_for
from ..distributed import Rank
from .base import Task, TaskData

IMAGE_KEYS = frozenset({("dataset", "resize"), ("dataset", "normalize"), ("model", "num_classes"),
                        ("model", "num_channel"), ("dataset", "limit"), ("dataset", "test_limit"),
                        ("train", "epochs"), ("train", "eval_every"), ("loss", "label_smoothing")})


class ClassificationTask(Task):
    name = "classification"
    keys = IMAGE_KEYS
    metric_prefix = "eval"
    metrics = ("accuracy", "loss")

    @property
    def models(self) -> dict[str, Any]:
        from ..models import MODELS

        return MODELS

    def data(self, config: Any, rank: Any) -> TaskData:
        from ..preflight import check_labels

        train, test, subset = loaders(config, rank)
        if config.model.class_ is None:
            check_labels({"train": train, "test": test}, config.model.num_classes, config.dataset.name)
        return TaskData(train, test, dataset_size(train), extra={"train_subset": subset})

    def network(self, config: Any, data: TaskData) -> Any:
        from ..models import network_for

        return network_for(config.model)

    def loss(self, config: Any) -> Any:
        from ..registry import build_loss

        return build_loss(config.loss)

    def epochs(self, config: Any) -> int:
        return config.train.epochs

    def example_batch(self, config: Any, data: TaskData | None) -> tuple[Any, Any]:
        d, m = config.dataset, config.model
        size = d.resize or 28
        return (np.zeros((d.batch_size, m.num_channel, size, size), np.float32),
                np.zeros((d.batch_size,), np.int32))

    def summary_input(self, config: Any, data: TaskData) -> Any:
        from ..data import first_batch

        return np.ascontiguousarray(first_batch(data.train)[0][:2], dtype=np.float32)

    def check_fit(self, config: Any, net: Any, data: TaskData) -> None:
        from ..data import check_model_takes_data

        data.info["classes"] = check_model_takes_data(net, {"train": data.train, "test": data.valid},
                                                      config.model.class_ or config.model.name)

    def callbacks(self, plan: Any, model: Any, data: TaskData) -> list[Any]:
        subset = data.extra.get("train_subset")
        if subset is None:  # a pipeline from dataset.class (no arrays to subset)
            return []
        return [TrainAccuracy(model, subset, plan.config.train.eval_every)]

    def record_data(self, run: Any, config: Any, data: TaskData) -> None:
        from ..mlflow_record import log_data

        log_data(run, config, data.train, data.valid)

    def log_model(self, run: Any, config: Any, resolved: dict[str, Any], checkpoint: str,
                  data: TaskData) -> str | None:
        from ..tracking import log_trained_model

        return log_trained_model(run, config, resolved, checkpoint, data.valid, data.info["classes"])


def loaders(config: Any, rank: Rank | None = None) -> tuple[Any, Any, Any]:
    """Training batches (this rank's shard), test batches, and a fixed training subset for
    train accuracy."""
    d = config.dataset
    rank = rank or Rank()
    spec = transforms_for(config)
    if d.class_ is not None or d.name in ARRAY_SOURCES:
        found = custom_loaders(config, spec, (rank.size, rank.rank))
        if rank.distributed and not hasattr(found[0], "num_shards"):
            import warnings

            warnings.warn("dataset.class: the trainer does not shard a framework.dataset pipeline; "
                          "give it num_shards=get_group_size(), shard_id=get_rank() yourself (else "
                          "every rank reads the same samples)", stacklevel=2)
        return found
    train = datasets.make_loader(d.name, split="train", root=d.root, batch_size=d.batch_size,
                                 shuffle=d.shuffle, seed=config.seed, limit=d.limit, transforms=spec,
                                 num_shards=rank.size, shard_id=rank.rank)
    eval_batch = max(d.batch_size, 256)
    test = datasets.make_loader(d.name, split="test", root=d.root, batch_size=eval_batch,
                                shuffle=False, drop_remainder=False, limit=d.test_limit,
                                transforms=spec)
    subset = min(TRAIN_EVAL_SAMPLES, train.num_samples)
    train_subset = datasets.make_loader((train.images[:subset], train.labels[:subset]),
                                        batch_size=eval_batch, shuffle=False, drop_remainder=False)
    return train, test, train_subset


class TrainAccuracy(Callback):
    """Accuracy on a fixed subset of the training data at evaluation epochs
    (``train_accuracy``, logged as ``train/accuracy``), next to the test figures."""

    phase = "metrics"

    def __init__(self, model: Model, loader: Any, every: int) -> None:
        self.model, self.loader, self.every = model, loader, every

    def on_train_epoch_end(self, ctx: RunContext) -> None:
        if ctx.epoch % self.every == 0:
            ctx.metrics["train_accuracy"] = self.model.eval(self.loader)["accuracy"]
