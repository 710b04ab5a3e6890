"""``framework.Model`` with ``framework.dataset`` pipelines: same results as today's loader,
exact mid-epoch resume, metrics in both forms, MindSpore's log lines, lazy imports."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import numpy as np
import pytest

import framework as ms
from framework import nn
from framework.dataset import NumpySlicesDataset, vision
from tests.framework.train import tiny


def _pipeline(shuffle=True, augment=False, batch=tiny.BATCH):
    x, y = tiny.data()
    ds = NumpySlicesDataset({"image": x[..., None], "label": y}, shuffle=shuffle)  # N x 4 x 4 x 1 (HWC)
    if augment:
        ds = ds.map(vision.RandomHorizontalFlip(), "image")
    return ds.map(vision.HWC2CHW(), "image").batch(batch, drop_remainder=True)


class StopAt(ms.Callback):
    def __init__(self, step):
        self.at = step

    def on_train_step_end(self, run_context):
        if run_context.global_step == self.at:
            run_context.request_stop()


def test_lazy_imports_do_not_load_the_trainer():
    code = ("import sys, framework as ms; assert 'trainer' not in sys.modules; "
            "assert 'framework.dataset' not in sys.modules; "
            "from framework import Model, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig, "
            "Callback, RunContext; import framework.train as t; assert t.Model is Model is ms.Model; "
            "print(ms.dataset.MnistDataset.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "MnistDataset"


def test_same_losses_as_the_batch_iterator():
    from framework.train import History

    a, b = History(), History()
    tiny.model(seed=3).train(2, _pipeline(shuffle=False), callbacks=[a])
    tiny.model(seed=3, dropout=True).train(2, tiny.loader(shuffle=False), callbacks=[b])
    assert len(a.step_losses) == 2 * tiny.STEPS_PER_EPOCH
    np.testing.assert_allclose(a.step_losses, b.step_losses, rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_resume_mid_epoch_matches_an_uninterrupted_run(tmp_path, mode):
    from framework.train import History

    whole = tiny.model(seed=5, mode=mode)
    reference = History()
    whole.train(2, _pipeline(augment=True), callbacks=[reference])
    first = tiny.model(seed=5, mode=mode)
    saver = ms.ModelCheckpoint("p", tmp_path, ms.CheckpointConfig(save_checkpoint_steps=100))
    first.train(2, _pipeline(augment=True), callbacks=[StopAt(tiny.STEPS_PER_EPOCH + 4), saver])
    ms.set_seed(5)  # the same script again: the pipeline takes the same seed
    data = _pipeline(augment=True)
    again = tiny.model(seed=11, mode=mode)  # other weights: the checkpoint must restore them
    rest = History()
    saver = ms.ModelCheckpoint("p", tmp_path, ms.CheckpointConfig(save_checkpoint_steps=100))
    again.train(2, data, callbacks=[rest, saver], resume_from="last")
    ms.set_seed(6)  # another seed: another order, refused
    data = _pipeline(augment=True)
    with pytest.raises(ms.serialization.CheckpointError, match="seed 5 != 6"):
        tiny.model(seed=5, mode=mode).train(2, data, callbacks=[saver], resume_from="last")
    np.testing.assert_allclose(rest.step_losses, reference.step_losses[-len(rest.step_losses):], rtol=1e-5)
    assert len(rest.step_losses) == tiny.STEPS_PER_EPOCH - 4
    for name, value in tiny.params(whole).items():
        np.testing.assert_allclose(tiny.params(again)[name], value, rtol=1e-5, atol=1e-7)


def test_fit_eval_metrics_forms_and_log_lines():
    out = io.StringIO()
    ms.set_seed(0)
    net = tiny.network(dropout=False)
    model = ms.Model(net, tiny.loss_fn(), nn.Momentum(net.trainable_params(), 0.1, 0.9),
                     metrics={"Accuracy": nn.Accuracy(), "Top5": nn.Top5CategoricalAccuracy()})
    model.fit(2, _pipeline(), _pipeline(shuffle=False), callbacks=[ms.LossMonitor(6, file=out),
                                                                  ms.TimeMonitor(file=out)])
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"epoch: 1 step: 6, loss is \d\.\d+", lines[0])
    evals = [line for line in lines if line.startswith("Eval result")]
    assert len(evals) == 2 and re.fullmatch(r"Eval result: epoch 2, metrics: \{'Accuracy': 0\.\d+, "
                                            r"'Top5': 1\.0\}", evals[1])
    assert sum(bool(re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms", line))
               for line in lines) == 2
    result = model.eval(_pipeline(shuffle=False))
    x, y = tiny.data()
    logits = net(ms.Tensor(x[:len(y) // tiny.BATCH * tiny.BATCH, None])).asnumpy()
    assert result["Accuracy"] == pytest.approx(float((logits.argmax(1) == y[:len(logits)]).mean()))
    by_name = ms.Model(net, tiny.loss_fn(), metrics={"accuracy", "precision"}).eval(_pipeline(shuffle=False))
    assert by_name["accuracy"] == pytest.approx(result["Accuracy"]) and by_name["precision"].shape == (3,)


def test_three_columns_are_refused_with_a_fix():
    x, y = tiny.data()
    ds = NumpySlicesDataset({"image": x[:, None], "label": y, "extra": y}).batch(8)
    with pytest.raises(ValueError, match=r"3 columns.*project"):
        tiny.model().train(1, ds, dataset_sink_mode=True)
