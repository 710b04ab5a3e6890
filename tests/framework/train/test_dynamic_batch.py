"""Graph-mode training marks the batch axis dynamic: a last partial batch and evaluation at
other batch sizes run on the function compiled for the first batch, with PyNative's losses."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import graph_mode
from framework.train import History

from . import tiny


def _compiles() -> int:
    return graph_mode.cache_stats["compiles"] + graph_mode.cache_stats["disk_hits"]


@pytest.mark.slow
def test_a_partial_last_batch_and_other_eval_sizes_do_not_recompile(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "compiled"))
    n = tiny.N_SAMPLES + 4  # 12 batches of 8, then one of 4
    eager, compiled = History(), History()
    tiny.model(seed=0, mode=ms.PYNATIVE_MODE).train(1, tiny.loader(n=n, drop_remainder=False),
                                                    callbacks=[eager])
    model = tiny.model(seed=0, mode=ms.GRAPH_MODE)
    before = _compiles()
    model.train(1, tiny.loader(n=n, drop_remainder=False), callbacks=[compiled])
    assert _compiles() - before == 1  # the train step, once for sizes 8 and 4
    assert len(compiled.step_losses) == len(eager.step_losses) == 13
    np.testing.assert_allclose(compiled.step_losses, eager.step_losses, rtol=1e-5, atol=1e-6)
    before = _compiles()
    for batch in (8, 13, 5):
        graph = model.eval(tiny.loader(shuffle=False, batch_size=batch, drop_remainder=False, n=n))
        eager_eval = tiny.model(seed=0, mode=ms.PYNATIVE_MODE)
        eager_eval.network.set_train(False)
        ms.load_param_into_net(eager_eval.network, {p.name: p for p in model.network.get_parameters()})
        want = eager_eval.eval(tiny.loader(shuffle=False, batch_size=batch, drop_remainder=False, n=n))
        assert graph["accuracy"] == pytest.approx(want["accuracy"])
        assert graph["loss"] == pytest.approx(want["loss"], rel=1e-5)
    assert _compiles() - before == 1  # the eval network, once for sizes 8, 4, 13, 5 ...
