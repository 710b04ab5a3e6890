"""A language model on two ranks (``train run --nproc 2``): each rank draws its share of
the global batch's windows, so two ranks of B equal one process of 2B (datasets/windows.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from framework.serialization import read_arrays

from .test_cli_dist import needs_mpi

YAML = """\
name: lmdist
task: language_model
mode: pynative
model: {name: gpt, args: {n_layer: 1, n_head: 2, n_embd: 16}}
dataset: {name: text, root: corpus.txt, block_size: 8, batch_size: 8}
optimizer: {name: adamw, learning_rate: 0.01}
train: {max_steps: 3, eval_every_steps: 3, eval_batches: 1}
checkpoint: {save_steps: 0}
mlflow: {log_model: false, system_metrics: false}
"""


def _saved(folder):
    """The run's checkpoint after 3 steps, in its run folder under ``checkpoint.dir``."""
    (path,) = folder.glob("*/lmdist-step-3.ckpt")
    return path


@needs_mpi
def test_two_ranks_of_b_windows_train_as_one_process_of_2b(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    rng = np.random.default_rng(0)
    (tmp_path / "corpus.txt").write_text("".join(rng.choice(list("abcdefgh \n"), 5000)))
    (tmp_path / "lm.yaml").write_text(YAML)
    runs = {"ranks": ["--nproc", "2", "dataset.batch_size=4"], "one": [], "half": ["dataset.batch_size=4"]}
    for name, extra in runs.items():
        done = subprocess.run([sys.executable, "-m", "trainer.cli", "run", "lm.yaml", "--quiet",
                               f"checkpoint.dir={name}", *extra], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    ranks, _ = read_arrays(_saved(tmp_path / "ranks"))
    one, _ = read_arrays(_saved(tmp_path / "one"))
    weights = [k for k in one if k.startswith("transformer")]
    assert weights
    for key in weights:
        np.testing.assert_allclose(ranks[key], one[key], rtol=1e-4, atol=1e-5, err_msg=key)
    half, _ = read_arrays(_saved(tmp_path / "half"))  # one rank's windows alone differ
    assert max(np.abs(half[k] - one[k]).max() for k in weights) > 1e-3
