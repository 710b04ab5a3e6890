"""Model.train/eval/fit/predict against hand-written references, in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from framework.graph_mode import cache_stats
from framework.train import Accuracy, History, Loss, Metric, Model, make_step
from framework.train.metrics import build_metrics

from . import tiny


@pytest.fixture
def graph_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "compiled"))


def test_pynative_train_equals_the_hand_written_loop() -> None:
    ref_losses, ref_params = tiny.manual_losses(seed=0, epochs=2)
    model = tiny.model(seed=0, mode="pynative")
    history = History()
    ctx = model.train(2, tiny.loader(), callbacks=[history])
    assert history.step_losses == ref_losses  # bitwise
    assert ctx.global_step == 2 * tiny.STEPS_PER_EPOCH and ctx.epoch == 2
    params = tiny.params(model)
    assert params.keys() == ref_params.keys()
    for name, value in ref_params.items():
        assert np.array_equal(params[name], value), name
    assert int(params["global_step"]) == 2 * tiny.STEPS_PER_EPOCH
    assert history.history["loss"] == pytest.approx(
        [np.mean(ref_losses[:12]), np.mean(ref_losses[12:])], rel=1e-12)


def test_graph_train_matches_pynative(graph_cache) -> None:
    eager, compiled = History(), History()
    tiny.model(seed=0, mode=ms.PYNATIVE_MODE).train(2, tiny.loader(), callbacks=[eager])
    model = tiny.model(seed=0, mode=ms.GRAPH_MODE)
    ctx = model.train(2, tiny.loader(), callbacks=[compiled])
    assert ctx.mode == "graph"
    np.testing.assert_allclose(compiled.step_losses, eager.step_losses, rtol=1e-5, atol=1e-6)
    assert ctx.timings.first_compile_seconds is not None and ctx.timings.first_compile_seconds > 0


def test_mode_follows_the_context_at_train_time(graph_cache) -> None:
    model = tiny.model(seed=0)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert model.current_mode() == "graph"
    traces = cache_stats["traces"]
    assert model.train(1, tiny.loader()).mode == "graph"
    assert cache_stats["traces"] == traces + 1  # one signature, compiled once
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert model.train(1, tiny.loader()).mode == "pynative"
    with pytest.raises(ValueError, match="mode must be"):
        tiny.model(mode="eager")


def test_step_objects_ignore_the_context(graph_cache) -> None:
    net = tiny.network(dropout=False)
    x = np.ones((4, 1, 4, 4), np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    traces = cache_stats["traces"]
    out, timing = make_step(net, "pynative")(x)
    assert cache_stats["traces"] == traces and timing.compile_seconds == 0.0
    ms.set_context(mode=ms.PYNATIVE_MODE)
    step = make_step(net, "graph")
    out2, first = step(x)
    _, second = step(x)
    assert cache_stats["traces"] == traces + 1
    assert first.compile_seconds > 0 and second.compile_seconds == 0.0
    np.testing.assert_allclose(out2.asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)


def test_eval_metrics_equal_numpy_references() -> None:
    model = tiny.model(seed=0)
    model.train(1, tiny.loader())
    test = tiny.loader(shuffle=False, batch_size=20, drop_remainder=False)  # batches 20 x 4 + 16
    result = model.eval(test)
    logits = model.predict(test.images).asnumpy()
    assert result["accuracy"] == pytest.approx(np.mean(logits.argmax(1) == test.labels), abs=1e-12)
    # Loss: the batch losses weighted by batch size, i.e. the mean over all samples
    shifted = logits - logits.max(1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    per_sample = -log_p[np.arange(len(test.labels)), test.labels]
    assert result["loss"] == pytest.approx(per_sample.mean(), rel=1e-5)


def test_custom_metric_and_eval_network() -> None:
    class ErrorRate(Metric):
        def clear(self) -> None:
            self.wrong = self.total = 0

        def update(self, logits, labels) -> None:
            self.wrong += int((logits.argmax(1) != labels).sum())
            self.total += len(labels)

        def eval(self) -> float:
            return self.wrong / self.total

    model = tiny.model(seed=0, metrics={"err": ErrorRate(), "acc": Accuracy()})
    model.train(1, tiny.loader())
    test = tiny.loader(shuffle=False)
    result = model.eval(test)
    assert result["err"] == pytest.approx(1 - result["acc"])
    with_eval = Model(model.network, metrics={"acc": Accuracy(), "loss": Loss()},
                      eval_network=nn.WithEvalCell(model.network, tiny.loss_fn()))
    default = Model(model.network, tiny.loss_fn(), metrics={"acc", "loss"}).eval(test)
    assert with_eval.eval(test) == pytest.approx(default)


def test_accuracy_and_loss_metrics_directly() -> None:
    acc = Accuracy()
    acc.update(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]]), np.array([1, 1, 1]))
    acc.update(Tensor(np.array([[0.0, 1.0]], np.float32)), np.array([[0, 1]]))  # one-hot labels
    assert acc.eval() == pytest.approx(3 / 4)
    with pytest.raises(ValueError, match="do not match"):
        acc.update(np.zeros((2, 3)), np.zeros(3))
    acc.clear()
    with pytest.raises(RuntimeError, match="no samples"):
        acc.eval()
    loss = Loss()
    loss.update(np.float32(2.0), 3)
    loss.update(np.float32(1.0), 1)
    assert loss.eval() == pytest.approx(7 / 4)
    assert set(build_metrics(["acc", "loss"])) == {"acc", "loss"}
    with pytest.raises(ValueError, match="unknown metric 'bleu'"):
        build_metrics({"bleu"})


def test_fit_validates_on_the_requested_epochs() -> None:
    history = History()
    model = tiny.model(seed=0)
    ctx = model.fit(4, tiny.loader(), tiny.loader(shuffle=False), valid_frequency=2, callbacks=[history])
    acc = history.history["eval_accuracy"]
    assert np.isnan(acc[0]) and np.isnan(acc[2]) and 0 <= acc[1] <= 1 and 0 <= acc[3] <= 1
    assert ctx.metrics["eval_accuracy"] == acc[3]
    assert acc[3] == model.eval(tiny.loader(shuffle=False))["accuracy"]  # eval after fit: same weights
    listed = History()
    tiny.model(seed=0).fit(3, tiny.loader(), tiny.loader(shuffle=False), valid_frequency=[3],
                           callbacks=[listed])
    assert [np.isnan(v) for v in listed.history["eval_loss"]] == [True, True, False]


def test_predict_in_both_modes(graph_cache) -> None:
    model = tiny.model(seed=0)
    x = tiny.data(10)[0][:, None]
    eager = model.predict(x).asnumpy()
    assert eager.shape == (10, tiny.CLASSES)
    reference = model.network.construct(Tensor(x)).asnumpy()  # network in eval mode: no dropout
    np.testing.assert_array_equal(eager, reference)
    graph = Model(model.network, mode="graph").predict(x).asnumpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)


def test_plain_lists_of_batches_and_a_loss_network() -> None:
    batches = list(tiny.loader(shuffle=False))
    ms.set_seed(0)
    net = tiny.network(dropout=False)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    with_list = History()
    Model(nn.WithLossCell(net, tiny.loss_fn()), optimizer=opt).train(2, batches, callbacks=[with_list])
    with_loader = History()
    tiny.model(seed=0, dropout=False).train(2, tiny.loader(shuffle=False), callbacks=[with_loader])
    assert with_list.step_losses == with_loader.step_losses


def test_clear_errors_for_misuse() -> None:
    net = tiny.network()
    with pytest.raises(ValueError, match="needs an optimizer"):
        Model(net, tiny.loss_fn()).train(1, tiny.loader())
    with pytest.raises(ValueError, match="needs metrics"):
        Model(net, tiny.loss_fn()).eval(tiny.loader())
    with pytest.raises(ValueError, match="needs the loss"):
        Model(net, metrics={"loss"}).eval(tiny.loader())
    with pytest.raises(TypeError, match="re-iterable"):
        tiny.model().train(1, (b for b in tiny.loader()))
    with pytest.raises(ValueError, match="epoch must be"):
        tiny.model().train(0, tiny.loader())
    with pytest.raises(TypeError, match="nn.Cell"):
        Model(lambda x: x)


def test_initial_epoch_counts_the_skipped_epochs(tmp_path) -> None:
    from framework.train import CheckpointConfig, ModelCheckpoint

    saver = ModelCheckpoint("ie", tmp_path, CheckpointConfig(save_checkpoint_steps=100))
    ctx = tiny.model().train(3, tiny.loader(), callbacks=[saver], initial_epoch=2)
    assert (ctx.epoch, ctx.step, ctx.global_step) == (3, tiny.STEPS_PER_EPOCH, 3 * tiny.STEPS_PER_EPOCH)
    assert [p.name for p in tmp_path.glob("*.ckpt")] == ["ie-3_12.ckpt"]
    with pytest.raises(ValueError, match="initial_epoch"):
        tiny.model().train(2, tiny.loader(), initial_epoch=2)
