"""Text data at its edges: a corpus of one line (no newline) trains and samples (the
evaluation sample started from a newline its vocabulary lacked, and failed after a whole
interval); ``train eval`` on a validation split of fewer windows than ``batch_size``
evaluates the windows there are (it raised ``IndexError``); an explicit ``dataset.root``
for ``tinyshakespeare`` is the only place looked at (an empty folder trained on another
copy found in ``$TRAIN_DATA_DIR``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from .helpers import DATA, TINY_LM, experiment, one_error, train

LM = TINY_LM.replace("eval_every_steps: 4", "eval_every_steps: 2")
WORDS = ["to be", "or not", "that is", "the question", "whether", "tis nobler"]


def _corpus(folder: Path, separator: str, count: int = 400) -> str:
    rng = np.random.default_rng(0)
    text = separator.join(" ".join(rng.choice(WORDS, 6)) for _ in range(count))
    (folder / "corpus.txt").write_text(text)
    return text


@pytest.mark.slow
def test_a_corpus_without_a_newline_trains_and_samples_from_its_vocabulary(tmp_path: Path) -> None:
    _corpus(tmp_path, ". ")
    file = experiment(tmp_path, LM, "lm.yaml")
    done = train(tmp_path, "run", str(file), "mlflow.system_metrics=false")
    assert done.returncode == 0, done.stderr
    assert "--- sample at step 2 ---" in done.stdout and "--- sample at step 4 ---" in done.stdout
    ckpt = next(tmp_path.glob("checkpoints/lm/*/lm-step-4.ckpt"))
    sampled = train(tmp_path, "sample", str(file), "--checkpoint", str(ckpt), "--tokens", "30")
    assert sampled.returncode == 0, sampled.stderr
    # the vocabulary's first token (' ', the smallest character) starts it: 30 more after it
    assert len(sampled.stdout) == 31 and set(sampled.stdout[:-1]) <= set("".join(WORDS) + ". ")


@pytest.mark.slow
def test_eval_with_fewer_validation_windows_than_a_batch_evaluates_those(tmp_path: Path) -> None:
    """20 validation windows of 8 tokens, batch_size 32: one batch of the 20, its loss equal to
    NumPy's cross-entropy over them."""
    from datasets.tokenizer import CharTokenizer
    from framework import Tensor
    from framework.serialization import read_arrays
    from trainer.config import load_config
    from trainer.tasks.language_model import trained_network

    text = _corpus(tmp_path, "\n", 30)  # val_fraction 0.1: about 165 characters
    cut = int(len(text) * 0.9)
    val = text[cut:]
    assert (len(val) - 1) // 8 < 32
    file = experiment(tmp_path, LM, "lm.yaml")
    done = train(tmp_path, "run", str(file), "--quiet", "mlflow.system_metrics=false")
    assert done.returncode == 0, done.stderr
    ckpt = next(tmp_path.glob("checkpoints/lm/*/lm-step-4.ckpt"))
    evaluated = train(tmp_path, "eval", str(file), "--checkpoint", str(ckpt), "dataset.batch_size=32")
    assert evaluated.returncode == 0, evaluated.stderr
    chars = sorted(set(text[:cut]))
    ids = np.array([chars.index(c) for c in val])
    n = (len(ids) - 1) // 8
    x, y = ids[:n * 8].reshape(n, 8), ids[1:n * 8 + 1].reshape(n, 8)
    config = load_config(file, [f"dataset.root={tmp_path / 'corpus.txt'}"])
    net = trained_network(config, CharTokenizer("".join(chars)), read_arrays(ckpt)[0])
    logits = net(Tensor(x.astype(np.int32))).asnumpy().astype(np.float64)
    top = logits.max(-1, keepdims=True)
    logp = logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))
    expected = -np.take_along_axis(logp, y[..., None], -1).mean()
    assert f"val/loss {expected:.4f}" in evaluated.stdout, evaluated.stdout
    assert f"val/perplexity {math.exp(expected):.2f}" in evaluated.stdout


@pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")
def test_an_empty_root_for_tinyshakespeare_looks_nowhere_else(tmp_path: Path) -> None:
    assert (Path(DATA) / "tinyshakespeare" / "input.txt").is_file()  # the copy it must not take
    (tmp_path / "empty").mkdir()
    file = experiment(tmp_path, LM.replace("name: text\n  root: corpus.txt", "name: tinyshakespeare"),
                      "lm.yaml")
    line = one_error(train(tmp_path, "run", str(file), "dataset.root=empty", "--quiet",
                           TRAIN_DATA_DIR=DATA))
    assert line == ("error: dataset.root empty holds no tinyshakespeare text: empty/input.txt and "
                    "empty/tinyshakespeare/input.txt (not there); fix dataset.root, or remove it to "
                    "search $TRAIN_DATA_DIR/tinyshakespeare, the system and cache folders (downloaded "
                    "when absent)")
