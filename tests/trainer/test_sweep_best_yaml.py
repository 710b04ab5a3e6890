"""A sweep's ``best.yaml`` is the experiment file as written plus the winning values (and
the sweep's fixed overrides): short, readable, and the same config the best trial ran."""

from __future__ import annotations

import pytest
import yaml

from trainer.config import load_config
from trainer.sweep.report import best_config_yaml
from trainer.sweep.spec import build_spec

BASE = """\
# a small search
name: tiny
seed: 1
model:
  name: lenet5
dataset:
  name: mnist-10k
  batch_size: 32
  limit: 500
optimizer:
  name: momentum
  learning_rate: loguniform(1e-3,1e-1)
  momentum: 0.9
train:
  epochs: 2
sweep:
  trials: 4
"""


def test_best_yaml_is_the_file_plus_the_winning_overrides(tmp_path):
    optuna = pytest.importorskip("optuna")
    file = tmp_path / "tiny.yaml"
    file.write_text(BASE)
    spec = build_spec(file, ["train.epochs=1", "dataset.batch_size=16,32"])
    params = {"optimizer.learning_rate": 0.02, "dataset.batch_size": 16}
    dists = optuna.distributions
    best = optuna.trial.create_trial(
        params=params, value=0.9,
        distributions={"optimizer.learning_rate": dists.FloatDistribution(1e-3, 1e-1, log=True),
                       "dataset.batch_size": dists.CategoricalDistribution([16, 32])})
    text = best_config_yaml(spec, best)
    written = yaml.safe_load(text)
    expected = yaml.safe_load(BASE)
    del expected["sweep"]
    expected["optimizer"]["learning_rate"] = 0.02
    expected["dataset"]["batch_size"] = 16
    expected["train"]["epochs"] = 1
    assert written == expected  # nothing the file did not say, no default spelt out
    out = tmp_path / "best.yaml"
    out.write_text(text)
    ran = load_config(file, ["train.epochs=1", "optimizer.learning_rate=0.02", "dataset.batch_size=16"])
    assert load_config(out).to_dict() == ran.to_dict()
