"""A MindSpore-style data-parallel script the tests start with ``mpiexec -n 2`` (or run
alone as the one-process reference). Only the import lines differ from MindSpore's.

    python ranks.py equivalence OUT.npz [--batch 32]   LeNet, 20 steps, both modes
    python ranks.py pipeline OUT.npz [--batch 32]       Model.train on a framework.dataset pipeline
    python ranks.py train DIR [--steps N] [--sleep S]   Model.train with checkpoints/resume
    python ranks.py syncbn OUT.npz [--batch 8] [--plain] [--modes pynative,graph]
                                                        conv + (Sync)BatchNorm, 5 steps
    python ranks.py fail RANK                           RANK raises at step 3
    python ranks.py mismatch                            rank 1 builds another network
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import datasets
import framework as ms
from framework import Tensor, nn
from framework.communication import broadcast_object, get_group_size, get_rank, init
from framework.train import Model
from framework.train.callbacks import Callback, CheckpointConfig, ModelCheckpoint
from framework.train.checkpoint import latest_valid
from trainer.models.lenet import LeNet5


def data(n: int = 1280) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.normal(size=(n, 1, 32, 32)).astype(np.float32), rng.integers(0, 10, n).astype(np.int32)


def setup() -> tuple[int, int]:
    init()
    rank, size = get_rank(), get_group_size()
    if size > 1:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    return rank, size


def network(width: int = 10) -> tuple[nn.Cell, nn.Cell, object]:
    ms.set_seed(1)
    net = LeNet5(num_classes=width)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, loss, nn.Momentum(net.trainable_params(), 0.05, 0.9)


def equivalence(out: str, batch: int) -> None:
    rank, size = setup()
    x, y = data()
    result = {}
    for mode in ("pynative", "graph"):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        net, loss, opt = network()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        loader = datasets.make_loader((x, y), batch_size=batch, seed=3, num_shards=size, shard_id=rank)
        for i, (xb, yb) in enumerate(loader):
            if i == 20:
                break
            step(Tensor(xb), Tensor(yb))
        result.update({f"{mode}/{p.name}": p.asnumpy() for p in net.trainable_params()})
    if rank == 0:
        np.savez(out, **result)


def pipeline(out: str, batch: int) -> None:
    """MindSpore's way: a NumpySlicesDataset sharded with num_shards=get_group_size(),
    shard_id=get_rank(), batched, and Model.train (PyNative), 10 steps."""
    import framework.dataset as ds

    rank, size = setup()
    x, y = data(640)
    net, loss, opt = network()
    dataset = ds.NumpySlicesDataset((x, y), column_names=["image", "label"], shuffle=False,
                                    num_shards=get_group_size(), shard_id=get_rank()).batch(batch)
    Model(net, loss, opt, mode="pynative").train(1, dataset)
    if rank == 0:
        np.savez(out, **{p.name: p.asnumpy() for p in net.trainable_params()})


def syncbn(out: str, batch: int, plain: bool, modes: list[str]) -> None:
    """A conv net with nn.SyncBatchNorm (``plain``: nn.BatchNorm2d), 5 Momentum steps."""
    rank, size = setup()
    rng = np.random.default_rng(11)
    x = rng.normal(1.0, 2.0, size=(80, 3, 8, 8)).astype(np.float32)
    y = rng.integers(0, 5, 80).astype(np.int32)
    result = {}
    for mode in modes:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        ms.set_seed(2)
        norm = nn.BatchNorm2d(4) if plain else nn.SyncBatchNorm(4)
        net = nn.SequentialCell([nn.Conv2d(3, 4, 3), norm, nn.ReLU(), nn.Flatten(), nn.Dense(256, 5)])
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        step.set_train(True)
        loader = datasets.make_loader((x, y), batch_size=batch, seed=3, num_shards=size, shard_id=rank)
        for i, (xb, yb) in enumerate(loader):
            if i == 5:
                break
            step(Tensor(xb), Tensor(yb))
        result.update({f"{mode}/{name}": p.asnumpy() for name, p in net.parameters_and_names()})
    if rank == 0:
        np.savez(out, **result)


class Slow(Callback):
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def on_train_step_end(self, ctx) -> None:
        time.sleep(self.seconds)


def train(directory: str, steps: int, sleep: float) -> None:
    rank, size = setup()
    x, y = data(64 * steps // 2)
    net, loss, opt = network()
    loader = datasets.make_loader((x, y), batch_size=32, seed=3, num_shards=size, shard_id=rank)
    callbacks = [Slow(sleep)] if sleep else []
    if rank == 0:  # one writer of checkpoints
        callbacks.append(ModelCheckpoint("dp", directory, CheckpointConfig(save_checkpoint_steps=3)))
    model = Model(net, loss, opt, mode="pynative")
    found = latest_valid(directory, "dp") if rank == 0 else None
    resume = broadcast_object(str(found.path) if found else None)  # rank 0's choice, for every rank
    model.train(2, loader, callbacks=callbacks, resume_from=resume)
    if rank == 0:
        final = {p.name: p.asnumpy() for p in net.trainable_params()}
        np.savez(os.path.join(directory, "final.npz"), **final)


def fail(bad_rank: int) -> None:
    rank, _ = setup()
    net, loss, opt = network()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    x, y = data(64)
    for i in range(1000):
        if i == 3 and rank == bad_rank:
            raise ValueError("bad batch at step 3")
        step(Tensor(x[:32]), Tensor(y[:32]))


def mismatch() -> None:
    from trainer.distributed import check_shapes

    rank, _ = setup()
    net, _, _ = network(10 if rank == 0 else 12)
    check_shapes(net)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("what")
    parser.add_argument("arg", nargs="?")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--modes", default="pynative,graph")
    a = parser.parse_args()
    if a.what == "equivalence":
        equivalence(a.arg, a.batch)
    elif a.what == "train":
        train(a.arg, a.steps, a.sleep)
    elif a.what == "pipeline":
        pipeline(a.arg, a.batch)
    elif a.what == "syncbn":
        syncbn(a.arg, a.batch, a.plain, a.modes.split(","))
    elif a.what == "fail":
        fail(int(a.arg))
    else:
        mismatch()
