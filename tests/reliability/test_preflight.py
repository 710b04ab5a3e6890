"""Items 3 and 4: bad output places and labels outside the model's classes fail before the
first step (exit 2, one line with the numbers); a save that fails mid-run is rescued.

Before the fix an unwritable checkpoint folder was found at the first save (with
``save_steps: 0`` after the whole run, losing the model) and ``model.num_classes=5`` on
MNIST trained to the end with exit 0 and a loss of 0 for the labels 5..9.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from framework.train import Callback, CheckpointConfig, ModelCheckpoint, RunContext, read_train_state

from ..framework.train import tiny
from .helpers import DATA, TINY, experiment, train

needs_data = pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")


def _one_error_line(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in stderr, stderr
    return errors[0]


@needs_data
def test_unwritable_checkpoint_folder_stops_before_training(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where a folder should be")
    file = experiment(tmp_path, TINY.replace("checkpoint:\n", "checkpoint:\n  dir: blocker/ckpt\n"))
    done = train(tmp_path, "run", str(file), "checkpoint.save_steps=0", "--quiet")
    assert done.returncode == 2, done.stderr
    line = _one_error_line(done.stderr)
    assert "checkpoint folder" in line and "blocker is a file" in line and "checkpoint.dir" in line
    assert "step" not in done.stdout  # no training happened


@needs_data
@pytest.mark.parametrize("args, extra, said", [
    (["mlflow.tracking_uri=sqlite:///blocker/store/mlflow.db"], {}, "MLflow store folder"),
    (["ir.save=true", "ir.dir=blocker/ir", "--mode", "graph"], {}, "IR folder"),
    (["--mode", "graph"], {"TWINMODE_CACHE_DIR": "blocker/compiled"}, "compiled-kernel cache"),
])
def test_every_output_place_is_checked_first(tmp_path: Path, args: list[str], extra: dict, said: str) -> None:
    (tmp_path / "blocker").write_text("a file where a folder should be")
    done = train(tmp_path, "run", str(experiment(tmp_path, TINY)), *args, "--quiet", **extra)
    assert done.returncode == 2, done.stderr
    line = _one_error_line(done.stderr)
    assert said in line and "blocker is a file" in line


@needs_data
def test_labels_outside_the_model_classes_exit_2_with_numbers(tmp_path: Path) -> None:
    done = train(tmp_path, "run", str(experiment(tmp_path, TINY)), "model.num_classes=5", "--quiet")
    assert done.returncode == 2, done.stderr
    line = _one_error_line(done.stderr)
    assert "labels 0..9" in line and "model.num_classes is 5" in line and "num_classes: 10" in line


def _reference_ce(logits: np.ndarray, labels: np.ndarray) -> float:
    shifted = logits - logits.max(1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    return float(-log_p[np.arange(len(labels)), labels].mean())


@pytest.mark.parametrize("make", [lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                                  lambda: nn.CrossEntropyLoss()])
@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_losses_refuse_out_of_range_labels_in_both_modes(make, graph) -> None:
    """Graph mode checks the labels inside the compiled function (ops/range_check.py): the
    same error and message as PyNative (it trained on a silent 0 loss term before)."""
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 5)).astype(np.float32)
    good = np.array([0, 4, 2, 1], np.int32)
    loss = make()
    run = ms.jit(lambda a, b: loss(a, b)) if graph else loss
    assert float(run(Tensor(logits), Tensor(good)).asnumpy()) == pytest.approx(_reference_ce(logits, good),
                                                                               rel=1e-5)
    for bad, shown in (([0, 7, 2, 1], "label 7"), ([0, -1, 2, 1], "label -1"), ([9, -1, 2, 1], "label 9")):
        with pytest.raises(ValueError, match=f"{shown} is out of range for logits with 5 classes"):
            run(Tensor(logits), Tensor(np.array(bad, np.int32)))


def test_cross_entropy_still_accepts_its_ignore_index() -> None:
    logits = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    labels = np.array([1, -100, 3], np.int32)
    got = float(nn.CrossEntropyLoss()(Tensor(logits), Tensor(labels)).asnumpy())
    assert got == pytest.approx(_reference_ce(logits[[0, 2]], labels[[0, 2]]), rel=1e-5)


class ReplaceFolderWithFile(Callback):
    """What a disk that turns read-only (or a removed mount) does to the checkpoint folder."""

    def __init__(self, folder: Path, at_step: int) -> None:
        self.folder, self.at_step = folder, at_step

    def on_train_step_end(self, run_context: RunContext) -> None:
        if run_context.global_step == self.at_step:
            shutil.rmtree(self.folder)
            self.folder.write_text("not a folder any more")


def test_a_failing_save_is_rescued_and_training_finishes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    folder = tmp_path / "ckpt"
    model = tiny.model(seed=0, mode="pynative")
    saver = ModelCheckpoint("run", folder, CheckpointConfig(save_checkpoint_steps=4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ctx = model.train(2, tiny.loader(), callbacks=[ReplaceFolderWithFile(folder, 6), saver])
    assert ctx.global_step == 2 * tiny.STEPS_PER_EPOCH
    rescued = Path(ctx.latest_checkpoint)
    assert rescued.parent.parent == tmp_path / "tmp" / "twinmode-rescue"
    assert any("cannot be written" in str(w.message) and str(rescued.parent) in str(w.message)
               for w in caught)
    arrays, state = read_train_state(rescued)
    assert state.global_step == ctx.global_step
    final = tiny.params(model)
    for name, value in final.items():
        assert arrays[name].tobytes() == value.tobytes(), name


def _file_size_limit(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.slow
@needs_data
def test_a_run_whose_final_state_cannot_be_written_anywhere_fails(tmp_path: Path) -> None:
    """Every checkpoint write refused, the rescue folder's too (a file-size limit below a
    checkpoint's size): exit 1 and one line saying the final state is lost (before: exit 0
    and ``checkpoint: None``)."""
    import subprocess
    import sys

    from .helpers import ROOT, env

    file = experiment(tmp_path, TINY)
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([sys.executable, "-m", "trainer.cli", "run", str(file), "train.epochs=1",
                           "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=env(tmp_path, TMPDIR=str(tmp_path / "tmp"), PYTHONPATH=str(ROOT)),
                          preexec_fn=lambda: _file_size_limit(40_000))  # noqa: PLW1509
    assert done.returncode == 1, done.stdout + done.stderr
    line = _one_error_line(done.stderr)
    rescue = next((tmp_path / "tmp" / "twinmode-rescue").iterdir())
    folder = re.search(r"written: (checkpoints/tiny/[^/ ]+)/tiny-1_6\.ckpt", line)
    assert folder, line
    assert line == (f"error: the run's final state (step 6) could not be written: "
                    f"{folder[1]}/tiny-1_6.ckpt could not be written (OSError: File "
                    f"too large), nor {rescue}/tiny-1_6.ckpt (File too large); no checkpoint of this run "
                    "was written")
    # the run's own folder, left empty, is removed as a failed run's is
    assert not list(tmp_path.glob("checkpoints/**/*.ckpt")) and not list(rescue.glob("*.ckpt"))
