"""`train compare`'s parity bisect, end to end: a user model (YAML ``model.class``) holds a
primitive whose graph-mode lowering is wrong on purpose above 0.5, fed by data whose first
two batches stay below it. The bisect must stop at step 3 and name the planted line; on the
same model without the plant, nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from trainer.cli import app
from trainer.config import load_config
from trainer.parity_bisect import bisect_modes

from .cli_env import SMOKE, needs_data

MODEL = '''\
"""Drift: the identity in PyNative; its graph-mode lowering scales entries above 0.5 by 1.5."""
from tvm import relax

from framework import nn
from framework.backend.tvm.lower.lowerings import LOWERINGS
from framework.primitive import Primitive, Spec


class Drift(Primitive, abstract=True):
    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return x

    def bprop(self, x, out, dout, needs):
        return (dout,)


def lower_drift(ctx, x):
    big = relax.op.greater(relax.op.abs(x), relax.const(0.5, "float32"))
    return relax.op.where(big, relax.op.multiply(x, relax.const(1.5, "float32")), x)


LOWERINGS[Drift] = lower_drift


class Tiny(nn.Cell):
    def __init__(self, num_classes: int = 3, side: int = 8, plant: bool = True):
        super().__init__()
        self.flatten = nn.Flatten()
        self.drift = Drift() if plant else None
        self.fc1 = nn.Dense(side * side, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, num_classes)

    def construct(self, x):
        x = self.flatten(x)
        if self.drift is not None:
            x = self.drift(x)  # PLANTED
        return self.fc2(self.relu(self.fc1(x)))
'''

YAML = """\
name: drift
model:
  class: models.py:Tiny
  args: {{plant: {plant}}}
dataset:
  name: npz
  root: data.npz
  batch_size: 16
  shuffle: false
  resize: null
  normalize: null
train:
  epochs: 1
checkpoint:
  save_steps: 0
"""

PLANTED_LINE = next(i for i, line in enumerate(MODEL.splitlines(), 1) if "# PLANTED" in line)


@pytest.fixture
def project(workdir):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (128, 8, 8)).astype(np.uint8)
    x[:32] //= 3  # batches 1 and 2: every pixel below 0.5 after /255, where Drift agrees
    y = rng.integers(0, 3, 128)
    np.savez(workdir / "data.npz", x_train=x[:96], y_train=y[:96], x_test=x[96:], y_test=y[96:])
    (workdir / "models.py").write_text(MODEL)
    for plant in (True, False):
        (workdir / f"{'planted' if plant else 'clean'}.yaml").write_text(
            YAML.format(plant=str(plant).lower()))
    return workdir


def compare(path):
    return CliRunner().invoke(app, ["compare", str(path), "--rounds", "1", "--steps", "2"],
                              catch_exceptions=False)


def parent_run():
    import mlflow

    from .test_cli import uri

    client = mlflow.MlflowClient(uri())
    runs = client.search_runs([client.get_experiment_by_name("twinmode").experiment_id],
                              "tags.compare_modes = 'graph,pynative'")
    assert len(runs) == 1
    return client, runs[0]


def test_compare_names_the_planted_node_and_logs_it(project):
    result = compare(project / "planted.yaml")
    assert result.exit_code == 0, result.output
    report = result.output[result.output.index("mode "):]
    assert all(len(line) <= 80 for line in report.splitlines()
               if "://" not in line and not line.lstrip().startswith("figure:")), report
    out = " ".join(result.output.split())  # (the report is wrapped at 80 columns)
    assert "parity graph vs pynative: FAIL" in out and "first step beyond it: 3 of 6" in out
    assert "in lockstep the modes leave the tolerance at step 3" in out
    assert f"at models.py:{PLANTED_LINE}: `x = self.drift(x) # PLANTED`" in out  # (from the cwd)
    assert "Drift (forward" in out and "relative 0.5" in out
    client, run = parent_run()
    tags = run.data.tags
    assert tags["parity_bisect_location"] == f"{project / 'models.py'}:{PLANTED_LINE}"
    assert tags["parity_bisect_step"] == "3" and tags["parity_bisect_node"].endswith("Drift")
    # the runs that time the modes log no model: the Models tab lists trained models only
    assert client.search_logged_models(experiment_ids=[run.info.experiment_id]) == []
    report = json.loads((project / client.download_artifacts(run.info.run_id, "parity_bisect.json",
                                                              str(project))).read_text())
    assert report["step"] == 3 and report["left_tolerance"] and report["recorded_step"] == 3
    assert report["first"]["prim"] == "Drift" and [b["prim"] for b in report["beyond"]] == ["Drift"]
    series = client.get_metric_history(run.info.run_id, "parity/abs_loss_diff")
    assert [m.step for m in series] == list(range(1, 7))
    assert all(m.value <= 1e-5 + 1e-3 * 1.2 for m in series[:2]) and series[2].value > 1e-3


def test_no_bisect_when_the_modes_agree(project):
    result = compare(project / "clean.yaml")
    assert result.exit_code == 0, result.output
    assert "parity graph vs pynative: PASS" in result.output
    assert "parity bisect" not in result.output
    assert "parity_bisect" not in parent_run()[1].data.tags


def test_bisect_finds_nothing_on_agreeing_modes(project):
    config = load_config(project / "clean.yaml", [])
    found = bisect_modes(config, ["graph", "pynative"], 4, 1e-3, 1e-5)
    assert found.step == 4 and not found.left_tolerance and found.first is None
    assert "stay within the tolerance up to step 4" in found.text()[0]
    assert "no node of the step's graph differs beyond float rounding" in found.text()[1]


def test_bisect_refuses_other_modes(project):
    with pytest.raises(ValueError, match="compares graph with pynative"):
        bisect_modes(load_config(project / "clean.yaml", []), ["graph"], 1, 1e-3, 1e-5)


@needs_data
@pytest.mark.slow
def test_bisect_finds_nothing_on_the_smoke_experiment(workdir):
    found = bisect_modes(load_config(SMOKE, []), ["graph", "pynative"], 3, 1e-3, 1e-5)
    assert not found.left_tolerance and found.first is None, found.text()
    assert found.nodes.nodes > 90 and not found.nodes.skipped
