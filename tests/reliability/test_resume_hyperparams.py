"""Item 2: on resume the configured hyper-parameters win; training state comes from the file.

The reference is an uninterrupted run whose learning rate is changed by hand at the epoch
boundary where the other run is stopped and resumed with the new rate. Before the fix the
checkpoint's stored rate silently won, so the resumed run continued at the old rate.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from framework.train import Callback, CheckpointConfig, ConfigMismatchWarning, ModelCheckpoint, RunContext

from ..framework.train import tiny

OLD_LR, NEW_LR = 0.1, 0.02


class ChangeLrAfterEpoch1(Callback):
    def on_train_epoch_end(self, run_context: RunContext) -> None:
        if run_context.epoch == 1:
            run_context.optimizer.learning_rate.set_data(np.array(NEW_LR, np.float32))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_resume_uses_the_new_learning_rate(tmp_path: Path, mode: str) -> None:
    reference = tiny.model(seed=0, mode=mode, lr=OLD_LR, dropout=False)
    reference.train(2, tiny.loader(), callbacks=[ChangeLrAfterEpoch1()])
    expected = tiny.params(reference)

    first = tiny.model(seed=0, mode=mode, lr=OLD_LR, dropout=False, config={"optimizer": {"lr": OLD_LR}})
    saver = CheckpointConfig(save_checkpoint_steps=tiny.STEPS_PER_EPOCH)
    first.train(1, tiny.loader(), callbacks=[ModelCheckpoint("run", tmp_path, saver)])

    resumed = tiny.model(seed=5, mode=mode, lr=NEW_LR, dropout=False, config={"optimizer": {"lr": NEW_LR}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed.train(2, tiny.loader(), resume_from="last",
                      callbacks=[ModelCheckpoint("run", tmp_path, saver)])
    assert resumed.optimizer.get_lr() == pytest.approx(NEW_LR)
    message = " ".join(str(w.message) for w in caught if issubclass(w.category, ConfigMismatchWarning))
    assert "optimizer.lr: 0.1 -> 0.02" in message and "new settings apply" in message
    got = tiny.params(resumed)
    assert int(got["global_step"]) == 2 * tiny.STEPS_PER_EPOCH  # the step count is the checkpoint's
    for name in expected:
        if mode == "pynative":
            assert got[name].tobytes() == expected[name].tobytes(), name
        else:
            np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6, err_msg=name)
