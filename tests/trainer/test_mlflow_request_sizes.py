"""The MLflow model serves each request at its own size when its compiled network serves
every batch size (symbolic), so a network whose rows depend on each other (a batch mean)
answers as PyNative does, where zero padding to a power of two would change the answer;
one compile for every request size. A network compiled per size still pads."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, graph_mode, nn
from framework.train.step import make_step
from trainer.mlflow_model import TwinmodePyfunc


class BatchCentred(nn.Cell):
    """Logits minus their batch mean: every row depends on the batch it is run in."""

    def __init__(self) -> None:
        super().__init__()
        self.dense = nn.Dense(16, 4)

    def construct(self, x):
        y = self.dense(x)
        return y - y.mean(axis=0, keep_dims=True)


class Tail(nn.Cell):
    """The first half of the rows zeroed: a slice at ``n // 2``, a begin that depends on the
    batch but not affinely, so compiled per size (``y[-1:]``, at ``n - 1``, is symbolic)."""

    def __init__(self) -> None:
        super().__init__()
        self.dense = nn.Dense(16, 4)

    def construct(self, x):
        y = self.dense(x)
        half = y.shape[0] // 2
        return ms.ops.concat((y[:half] * 0.0, y[half:]))


def _served(net: nn.Cell) -> TwinmodePyfunc:
    """The pyfunc's serving state as load_context leaves it, on ``net`` (no transforms)."""
    served = TwinmodePyfunc()
    net.set_train(False)
    served.network, served.transforms = net, lambda images: images
    served.step, served.symbolic = make_step(net, "graph"), None
    return served


def _compiles() -> int:
    return graph_mode.cache_stats["compiles"] + graph_mode.cache_stats["disk_hits"]


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))  # compiles counted afresh


def test_a_symbolic_network_serves_each_request_at_its_size_with_one_compile():
    ms.set_seed(0)
    served = _served(BatchCentred())
    rng = np.random.default_rng(0)
    before = _compiles()
    for n in (4, 3, 1, 6, 64):  # the first request is padded (no-op at 4): it tells symbolic
        images = rng.standard_normal((n, 16)).astype(np.float32)
        got = served._forward(images)
        with ms.pynative():
            want = served.network(Tensor(images)).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert served.symbolic is True
    assert _compiles() - before == 1


def test_a_network_compiled_per_size_is_still_padded_to_a_power_of_two():
    ms.set_seed(0)
    served = _served(Tail())
    rng = np.random.default_rng(0)
    before = _compiles()
    for n in (3, 4):  # both run at 4: one compile
        images = rng.standard_normal((n, 16)).astype(np.float32)
        padded = np.concatenate([images, np.zeros((4 - n, 16), np.float32)])
        with ms.pynative():
            want = served.network(Tensor(padded)).asnumpy()[:n]
        np.testing.assert_allclose(served._forward(images), want, rtol=1e-5, atol=1e-6)
    assert served.symbolic is False
    assert _compiles() - before == 1
