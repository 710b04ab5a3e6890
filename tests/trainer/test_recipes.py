"""Training recipes from YAML. `optimizer.schedule`: per-step learning rates written from
the formulas (linear warm-up, MindSpore's cosine / exponential / piecewise), applied in both modes with
equal losses, and bad settings stopping at load with file:line. `train.early_stopping`: stops
after the right epoch."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from framework.train.callbacks import Callback
from trainer.config import ConfigError, load_config
from trainer.experiment import run_experiment
from trainer.schedule import schedule_lrs


def sched(**kw):
    base = dict(name="constant", warmup_epochs=0, min_lr=0.0, decay_rate=0.1, decay_epochs=1,
                is_stair=False, milestones=None, values=None)
    return SimpleNamespace(**{**base, **kw})


def approx(values):
    return pytest.approx(values, rel=1e-12, abs=1e-15)


def test_schedules_by_hand():
    c = math.cos
    # warm-up over 1 epoch of 2 steps, then cosine over the 4 remaining steps from 0.1 to 0
    assert schedule_lrs(sched(name="cosine", warmup_epochs=1), 0.1, 3, 2) == approx(
        [0.05, 0.1, 0.1, 0.05 * (1 + c(math.pi / 4)), 0.05, 0.05 * (1 + c(3 * math.pi / 4))])
    assert schedule_lrs(sched(name="exponential", decay_rate=0.5), 0.2, 2, 2) == approx(
        [0.2, 0.2, 0.1, 0.1])
    assert schedule_lrs(sched(name="exponential", decay_rate=0.5, decay_epochs=2), 0.2, 2, 1) == \
        approx([0.2, 0.2 * 0.5 ** 0.5])
    assert schedule_lrs(sched(name="piecewise", milestones=[1, 2], values=[0.3, 0.2, 0.1]), 9.0,
                        3, 2) == approx([0.3, 0.3, 0.2, 0.2, 0.1, 0.1])
    assert schedule_lrs(sched(name="piecewise", milestones=[1, 5], values=[0.3, 0.2, 0.1],
                              warmup_epochs=1), 9.0, 3, 2) == approx([0.15, 0.3, 0.2, 0.2, 0.2, 0.2])
    assert schedule_lrs(sched(warmup_epochs=2), 0.3, 3, 1) == approx([0.15, 0.3, 0.3])


MODEL = '''\
from framework import nn


class Tiny(nn.Cell):
    def __init__(self, num_classes: int = 3):
        super().__init__()
        self.net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 16), nn.ReLU(),
                                      nn.Dense(16, num_classes)])

    def construct(self, x):
        return self.net(x)
'''

YAML = """\
name: sched
model: {class: tiny_model.py:Tiny}
dataset: {name: npz, root: data.npz, batch_size: 16, shuffle: false, resize: null, normalize: null}
optimizer:
  learning_rate: 0.2
  schedule: {name: cosine, warmup_epochs: 1, min_lr: 0.0}
train: {epochs: 2}
checkpoint: {save_steps: 0}
"""


@pytest.fixture
def experiment(workdir):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (128, 8, 8)).astype(np.uint8)
    y = np.stack([x[:, :3].mean((1, 2)), x[:, 3:5].mean((1, 2)), x[:, 5:].mean((1, 2))], 1).argmax(1)
    np.savez(workdir / "data.npz", x_train=x[:96], y_train=y[:96], x_test=x[96:], y_test=y[96:])
    (workdir / "tiny_model.py").write_text(MODEL)
    (workdir / "exp.yaml").write_text(YAML)
    return workdir / "exp.yaml"


class LRs(Callback):
    def __init__(self):
        self.lrs = []

    def on_train_step_end(self, ctx):
        self.lrs.append(ctx.optimizer.last_lr())  # the LR this step used


def run(path, *overrides):
    seen = LRs()
    config = load_config(path, list(overrides))
    result = run_experiment(config, quiet=True, log=False, callbacks=[seen],
                            checkpoint_dir=str(path.parent / "ck"))
    return result.losses, seen.lrs


def test_cosine_with_warmup_runs_equally_in_both_modes(experiment):
    eager, eager_lrs = run(experiment, "mode=pynative")
    graph, graph_lrs = run(experiment, "mode=graph")
    # 96 samples / 16 = 6 steps per epoch: warm-up 0.2 * (i + 1) / 6, then cosine over 6 steps
    expected = [0.2 * (i + 1) / 6 for i in range(6)] + [
        0.1 * (1 + math.cos(math.pi * j / 6)) for j in range(6)]
    assert eager_lrs == pytest.approx(expected, rel=1e-6)  # float32 Parameter
    assert graph_lrs == pytest.approx(expected, rel=1e-6)
    np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-6)
    constant, constant_lrs = run(experiment, "mode=graph", "optimizer.schedule.name=constant",
                                 "optimizer.schedule.warmup_epochs=0")
    assert constant_lrs == pytest.approx([0.2] * 12)
    assert abs(constant[1] - graph[1]) > 1e-4  # the schedule changed training


@pytest.mark.parametrize("override, message", [
    ("optimizer.schedule.min_lr=0.5", "min_lr must be >= 0 and below optimizer.learning_rate"),
    ("optimizer.schedule={name: piecewise, milestones: [1], values: [0.1]}",
     "one more value than milestones"),
    ("optimizer.schedule.name=cosin", "must be 'constant' or 'cosine'"),
    ("optimizer.schedule.warmup_epochs=-1", "warmup_epochs must be >= 0"),
])
def test_bad_schedule_is_a_config_error(experiment, override, message):
    with pytest.raises(ConfigError, match="optimizer.schedule") as caught:
        load_config(experiment, [override])
    assert message in str(caught.value)


def test_bad_schedule_in_the_file_names_its_line(experiment):
    experiment.write_text(YAML.replace("min_lr: 0.0", "min_lr: 0.3"))
    with pytest.raises(ConfigError) as caught:
        load_config(experiment)
    assert str(caught.value).startswith(f"{experiment}:6: 'optimizer.schedule' (cosine): min_lr")


@pytest.mark.parametrize("monitor, patience, epochs_run", [
    ("loss", 1, 2), ("loss", 2, 3), ("train_accuracy", 1, 2), ("eval_loss", 3, 4)])
def test_early_stopping_from_yaml_stops_at_the_right_epoch(experiment, monitor, patience,
                                                           epochs_run):
    # nothing improves by 100: the first epoch sets the best, then `patience` epochs wait
    losses, _ = run(experiment, "mode=pynative", "train.epochs=6",
                    f"train.early_stopping={{monitor: {monitor}, patience: {patience}, "
                    f"min_delta: 100}}")
    assert len(losses) == epochs_run * 6


def test_early_stopping_off_runs_every_epoch(experiment):
    losses, _ = run(experiment, "mode=pynative", "train.epochs=3")
    assert len(losses) == 18


def test_bad_early_stopping_monitor(experiment):
    with pytest.raises(ConfigError, match="did you mean 'eval_accuracy'"):
        load_config(experiment, ["train.early_stopping.monitor=eval_acuracy"])
    with pytest.raises(ConfigError, match="patience' must be >= 0"):
        load_config(experiment, ["train.early_stopping={monitor: loss, patience: -1}"])


def test_label_smoothing_loss_matches_the_formula(experiment):
    from framework import Tensor
    from trainer.build import build_model_for

    config = load_config(experiment, ["loss.label_smoothing=0.1"])
    model, _ = build_model_for(config)
    rng = np.random.default_rng(1)
    logits, labels = rng.standard_normal((5, 3)).astype(np.float32), np.array([0, 2, 1, 1, 0])
    got = float(model.loss_fn(Tensor(logits), Tensor(labels.astype(np.int32))).asnumpy())
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    target = np.eye(3)[labels] * 0.9 + 0.1 / 3
    assert got == pytest.approx(float(-(target * log_p).sum(1).mean()), rel=1e-5)
    eager, _ = run(experiment, "mode=pynative", "loss.label_smoothing=0.1", "train.epochs=1")
    graph, _ = run(experiment, "mode=graph", "loss.label_smoothing=0.1", "train.epochs=1")
    plain, _ = run(experiment, "mode=graph", "train.epochs=1")
    np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-6)
    assert graph[0] != pytest.approx(plain[0], rel=1e-4)
    with pytest.raises(ConfigError, match="label_smoothing' must be in"):
        load_config(experiment, ["loss.label_smoothing=1.0"])


def test_adamw_from_yaml_trains_equally_in_both_modes(experiment):
    eager, _ = run(experiment, "mode=pynative", "optimizer={name: adamw, learning_rate: 0.01, "
                   "weight_decay: 0.1, schedule: {name: constant, warmup_epochs: 0}}", "train.epochs=1")
    graph, _ = run(experiment, "mode=graph", "optimizer={name: adamw, learning_rate: 0.01, "
                   "weight_decay: 0.1, schedule: {name: constant, warmup_epochs: 0}}", "train.epochs=1")
    adam, _ = run(experiment, "mode=graph", "optimizer={name: adam, learning_rate: 0.01, "
                  "weight_decay: 0.1, schedule: {name: constant, warmup_epochs: 0}}", "train.epochs=1")
    np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-6)
    assert graph[-1] != pytest.approx(adam[-1], rel=1e-4)  # a different optimizer


def test_clip_by_global_norm_matches_numpy():
    from framework import Tensor, ops

    rng = np.random.default_rng(4)
    xs = [rng.standard_normal(s).astype(np.float32) for s in ((3, 2), (4,), ())]
    norm = np.sqrt(sum(float((x.astype(np.float64) ** 2).sum()) for x in xs))
    for clip in (0.5, norm * 2):
        got = ops.clip_by_global_norm(tuple(Tensor(x) for x in xs), clip)
        for g, x in zip(got, xs, strict=True):
            np.testing.assert_allclose(g.asnumpy(), x * clip / max(norm, clip), rtol=1e-6)


def test_clip_grad_norm_from_yaml_trains_equally_in_both_modes(experiment):
    clip = ["optimizer.clip_grad_norm=0.05", "train.epochs=1"]
    eager, _ = run(experiment, "mode=pynative", *clip)
    graph, _ = run(experiment, "mode=graph", *clip)
    loose, _ = run(experiment, "mode=graph", "optimizer.clip_grad_norm=1e6", "train.epochs=1")
    plain, _ = run(experiment, "mode=graph", "train.epochs=1")
    np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(loose, plain, rtol=1e-5)  # a norm never reached changes nothing
    assert graph[-1] != pytest.approx(plain[-1], rel=1e-3)
    with pytest.raises(ConfigError, match="clip_grad_norm' must be > 0"):
        load_config(experiment, ["optimizer.clip_grad_norm=0"])


class EpochMetric(Callback):
    order = 99  # after BestCheckpoint (95) has seen the same value

    def __init__(self, key):
        self.key, self.values = key, []

    def on_train_epoch_end(self, ctx):
        self.values.append(ctx.metrics.get(self.key))


@pytest.mark.parametrize("monitor, pick", [("eval_accuracy", max), ("eval_loss", min)])
def test_keep_best_keeps_the_best_epoch(experiment, monitor, pick):
    from framework.train.checkpoint import read_train_state

    seen = EpochMetric(monitor)
    config = load_config(experiment, ["mode=pynative", "train.epochs=4",
                                      f"checkpoint.keep_best={monitor}", "optimizer.learning_rate=0.5"])
    result = run_experiment(config, quiet=True, log=False, callbacks=[seen],
                            checkpoint_dir=str(experiment.parent / "ck"))
    assert len(seen.values) == 4 and len(set(seen.values)) > 1, seen.values
    best_epoch = seen.values.index(pick(seen.values)) + 1  # the first epoch reaching the best
    arrays, state = read_train_state(result.best_checkpoint)
    assert result.best_checkpoint.endswith("-best.ckpt") and state.epoch == best_epoch
    from framework.serialization import read_arrays

    last, _ = read_arrays(result.checkpoint)
    assert best_epoch < 4  # this seed's sequences peak before the end (0.53 at 2; 0.99 at 3)
    assert any(not np.array_equal(arrays[k], last[k]) for k in arrays)  # not the last weights
    with pytest.raises(ConfigError, match="did you mean 'eval_accuracy'"):
        load_config(experiment, ["checkpoint.keep_best=eval_acc"])


def test_exclude_bias_and_norm_groups_the_weight_decay(experiment):
    from trainer.build import build_model_for

    overrides = ["optimizer.weight_decay=0.01", "optimizer.exclude_bias_and_norm=true"]
    model, net = build_model_for(load_config(experiment, overrides))
    decay = dict(zip([p.name for p in net.trainable_params()], model.optimizer.decay_values,
                     strict=True))
    assert decay == {"net.1.weight": 0.01, "net.1.bias": 0.0, "net.3.weight": 0.01, "net.3.bias": 0.0}
    model, net = build_model_for(load_config(experiment, overrides[:1]))
    assert set(model.optimizer.decay_values) == {0.01}  # biases decayed by default, as before
    eager, _ = run(experiment, "mode=pynative", "train.epochs=1", *overrides)
    graph, _ = run(experiment, "mode=graph", "train.epochs=1", *overrides)
    np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-6)


def test_scheduled_lr_is_logged_to_mlflow_at_every_change(experiment):
    import mlflow

    uri = f"sqlite:///{experiment.parent / 'mlflow.db'}"
    config = load_config(experiment, ["mode=pynative", f"mlflow.tracking_uri={uri}",
                                      "mlflow.log_model=false", "mlflow.system_metrics=false"])
    result = run_experiment(config, quiet=True, checkpoint_dir=str(experiment.parent / "ck"))
    history = mlflow.MlflowClient(uri).get_metric_history(result.run_id, "lr")
    steps = sorted((m.step, m.value) for m in history)
    expected = [0.2 * (i + 1) / 6 for i in range(6)] + [
        0.1 * (1 + math.cos(math.pi * j / 6)) for j in range(6)]
    # every step whose LR changed: step 7 (cosine's start) repeats step 6's peak 0.2
    assert [s for s, _ in steps] == [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12]
    assert [v for _, v in steps] == pytest.approx(expected[:6] + expected[7:], rel=1e-6)


def final_weights(experiment, *overrides):
    from framework.serialization import read_arrays

    config = load_config(experiment, ["train.epochs=1", "optimizer.schedule.warmup_epochs=0",
                                      "optimizer.schedule.name=constant", *overrides])
    result = run_experiment(config, quiet=True, log=False, checkpoint_dir=str(experiment.parent / "ck"))
    arrays, _ = read_arrays(result.checkpoint)
    return {k: v for k, v in arrays.items() if k.startswith("net.")}, result


@pytest.mark.parametrize("clip", [None, 0.05])
def test_accumulating_2_batches_of_16_equals_batches_of_32(experiment, clip):
    extra = [f"optimizer.clip_grad_norm={clip}"] if clip else []
    reference, ref_run = final_weights(experiment, "mode=pynative", "dataset.batch_size=32", *extra)
    assert len(ref_run.losses) == 3
    for mode in ("pynative", "graph"):
        got, run_ = final_weights(experiment, f"mode={mode}", "dataset.batch_size=16",
                                  "train.accumulate_grad_batches=2", *extra)
        assert len(run_.losses) == 6  # micro-batches; 3 updates
        assert reference.keys() == got.keys()
        for key in reference:
            np.testing.assert_allclose(got[key], reference[key], rtol=1e-5, atol=1e-6, err_msg=key)
    plain, _ = final_weights(experiment, "mode=pynative", "dataset.batch_size=16", *extra)
    assert any(not np.allclose(plain[k], reference[k], atol=1e-6) for k in reference)


def test_accumulation_counts_the_schedule_in_updates_as_the_large_batch_does(experiment):
    """One LR road: the schedule is the optimizer's, indexed by its updates; 2 accumulated
    batches of 16 equal batches of 32 under warm-up + cosine, in both modes."""
    from framework.serialization import read_arrays

    def weights(*overrides):
        config = load_config(experiment, ["train.epochs=2", *overrides])
        result = run_experiment(config, quiet=True, log=False, checkpoint_dir=str(experiment.parent / "ck"))
        return {k: v for k, v in read_arrays(result.checkpoint)[0].items() if k.startswith("net.")}

    reference = weights("mode=pynative", "dataset.batch_size=32")
    for mode in ("pynative", "graph"):
        got = weights(f"mode={mode}", "dataset.batch_size=16", "train.accumulate_grad_batches=2")
        for key in reference:
            np.testing.assert_allclose(got[key], reference[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert schedule_lrs(sched(name="cosine", warmup_epochs=1), 0.2, 2, 3) != \
        schedule_lrs(sched(name="cosine", warmup_epochs=1), 0.2, 2, 6)[1::2]  # the index matters
