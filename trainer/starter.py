"""``train init``: a commented starter experiment and a model file to edit, so the first
run of one's own network is two commands (``train init mynet``, ``train run
mynet/experiment.yaml``). Files are written atomically and never overwritten unless asked.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

MODEL_FILE = "model.py"
EXPERIMENT_FILE = "experiment.yaml"

MODEL = '''\
"""Your network. Edit freely: experiment.yaml names it (model.class: model.py:MyNet) and
passes model.args to __init__, checked against its signature and type hints."""

from framework import nn, ops  # noqa: F401  (MindSpore: from mindspore import nn, ops)


class MyNet(nn.Cell):
    def __init__(self, num_classes: int = 10, channels: int = 16, in_channels: int = 1,
                 image_size: int = 32) -> None:
        super().__init__()
        # input: N x in_channels x image_size x image_size (dataset.resize sets image_size)
        self.conv1 = nn.Conv2d(in_channels, channels, 3, pad_mode="same")
        self.conv2 = nn.Conv2d(channels, 2 * channels, 3, pad_mode="same")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        side = image_size // 4  # two 2x2 poolings
        self.fc = nn.Dense(2 * channels * side * side, num_classes)

    def construct(self, x):
        # the forward pass: runs eagerly (--mode pynative) or compiled (--mode graph)
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(self.flatten(x))  # logits, N x num_classes
'''

EXPERIMENT = '''\
# A starter experiment: `train run {folder}/experiment.yaml` (add --mode pynative for eager
# mode; override any key on the command line: train.epochs=1 dataset.limit=2000).
# Every key has a default; the README lists them all. Unknown keys stop with file:line.
name: {name}
seed: 0
mode: graph                      # graph (compiled) or pynative (eager)

model:
  class: model.py:MyNet          # your nn.Cell: FILE.py:Class next to this file, or pkg.mod:Class
  args:                          # MyNet's __init__ arguments (checked against its type hints)
    num_classes: 10
    channels: 16
    image_size: 32               # = dataset.resize
  # or a built-in network instead of class/args:  name: lenet5

dataset:
  name: mnist                    # mnist, fashion-mnist, cifar10, cifar100 (downloaded once), mnist-10k
  # name: synthetic              # generated data, no download: args: {shape: [3, 32, 32], classes: 10}
  # name: npz                    # your arrays: root: data.npz with x_train, y_train, x_test, y_test
  # root: data.npz
  # class: mydata.py:make_dataset   # or your function: make_dataset(split, **args) -> (images, labels)
  batch_size: 32
  resize: 32                     # images are resized to resize x resize
  normalize: [0.1307, 0.3081]    # [mean, std] after scaling pixels to 0..1
  limit: null                    # first N training samples (null: all)

optimizer:
  name: momentum                 # momentum, sgd, adam, adamw, rmsprop, lamb
  learning_rate: 0.01            # the peak when a schedule is set
  momentum: 0.9
  # schedule: {name: cosine, warmup_epochs: 1, min_lr: 0.0}   # per-step learning rate
  # clip_grad_norm: 1.0          # gradients scaled to this global norm at most

train:
  epochs: 3
  log_every: 50                  # log the loss every N steps
  # early_stopping: {monitor: eval_accuracy, patience: 3}

checkpoint:
  save_steps: 500                # also at the end; resume with --resume last
  # keep_best: eval_accuracy     # also keep the best epoch's checkpoint

mlflow:
  experiment: {name}             # runs are logged to sqlite:///mlflow.db here; see `train ui`
'''

MODEL_LM = '''\
"""Your language model. Edit freely: experiment.yaml names it (model.class: model.py:CharLSTM)
and passes model.args to __init__; vocab_size and block_size come from the data."""

from framework import nn  # (MindSpore: from mindspore import nn)


class CharLSTM(nn.Cell):
    def __init__(self, vocab_size: int, block_size: int, embedding: int = 64, hidden: int = 256,
                 num_layers: int = 1) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding)
        self.rnn = nn.LSTM(embedding, hidden, num_layers, batch_first=True)
        self.head = nn.Dense(hidden, vocab_size)

    def construct(self, idx):
        # idx: B x T token ids -> B x T x vocab_size logits (position t sees tokens 0..t only)
        out, _ = self.rnn(self.embedding(idx))
        return self.head(out)
'''

EXPERIMENT_LM = '''\
# A starter language model: `train run {folder}/experiment.yaml`, then
# `train sample {folder}/experiment.yaml --prompt "ROMEO:"`. The README lists every key.
name: {name}
task: language_model
seed: 0
mode: graph                      # graph (compiled) or pynative (eager)

model:
  class: model.py:CharLSTM       # your nn.Cell of token ids -> logits
  args: {embedding: 64, hidden: 256, num_layers: 1}
  # or a built-in one:  name: gpt   args: {n_layer: 4, n_head: 4, n_embd: 128}

dataset:
  name: tinyshakespeare          # or name: text with root: your.txt (UTF-8)
  tokenizer: char                # or bpe with vocab_size: 1024 (the `text` extra)
  block_size: 64                 # tokens per window
  batch_size: 32

optimizer:
  name: adamw
  learning_rate: 2.0e-3
  weight_decay: 0.1
  clip_grad_norm: 1.0
  schedule: {name: cosine, warmup_steps: 50, min_lr: 2.0e-4}

train:
  max_steps: 1000
  eval_every_steps: 250          # evaluation, sample and checkpoint interval
  eval_batches: 20
  log_every: 50

checkpoint:
  save_steps: 250
  keep_best: val/loss

mlflow:
  experiment: {name}
'''

STARTERS = {"classification": (EXPERIMENT, MODEL), "language_model": (EXPERIMENT_LM, MODEL_LM)}


class StarterExists(FileExistsError):
    """A starter file is already there (the CLI exits with status 2)."""


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_starter(folder: str | os.PathLike, force: bool = False, task: str = "classification") -> list[Path]:
    """Write ``experiment.yaml`` and ``model.py`` of ``task`` into ``folder`` (created if
    needed); returns their paths. Existing files raise :class:`StarterExists` unless ``force``."""
    experiment, model = STARTERS[task]
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise StarterExists(f"{folder} is a file; give a folder for the starter files")
    files = {folder / EXPERIMENT_FILE: None, folder / MODEL_FILE: model}
    there = [str(p) for p in files if p.exists()]
    if there and not force:
        raise StarterExists(f"{', '.join(there)} already exist(s); keep your files, choose another "
                            "folder, or pass --force to overwrite")
    name = folder.resolve().name or "experiment"
    text = experiment.replace("{name}", json.dumps(name)).replace("{folder}", str(folder))
    files[folder / EXPERIMENT_FILE] = text
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        _write_atomic(path, text)
    return list(files)
