"""``train sample`` prints only text that the checkpoint gives: weights that hold a NaN or an
infinity stop it with one line naming them (they printed one token repeated, exit 0), a
prompt the vocabulary cannot encode is refused before anything is printed, and BPE text in
a script beyond ASCII streams as the whole sequence decodes (tokens decoded one at a time
printed U+FFFD for every character split across tokens)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .helpers import TINY_LM, experiment, one_error, train

LM = TINY_LM
WORDS = {"latin": ["to be", "or not", "that is", "the question", "whether", "tis nobler"],
         "cyrillic": ["быть", "или не", "вот в чём", "вопрос", "достойно ли", "смиряться"]}


def _trained(folder: Path, script: str, *overrides: str) -> Path:
    """A checkpoint of a tiny GPT trained 4 steps on words of ``script``."""
    rng = np.random.default_rng(0)
    text = "\n".join(" ".join(rng.choice(WORDS[script], 6)) for _ in range(400))
    (folder / "corpus.txt").write_text(text, encoding="utf-8")
    file = experiment(folder, LM, "lm.yaml")
    done = train(folder, "run", str(file), "--quiet", "mlflow.system_metrics=false", *overrides)
    assert done.returncode == 0, done.stderr
    return next(folder.glob("checkpoints/lm/*/lm-step-4.ckpt"))


@pytest.fixture(scope="module")
def char_lm(tmp_path_factory) -> Path:
    return _trained(tmp_path_factory.mktemp("char_lm"), "latin")


@pytest.mark.slow
def test_non_finite_weights_stop_sampling_with_one_line_naming_them(char_lm: Path) -> None:
    from framework.checkpoint_formats.twinmode import read_arrays, write_arrays

    arrays, metadata = read_arrays(char_lm)
    arrays["transformer.wte.embedding_table"][3, 1] = np.nan
    arrays["transformer.ln_f.gamma"][0] = np.inf
    bad = char_lm.with_name("diverged.ckpt")
    write_arrays(bad, arrays, metadata)
    done = train(char_lm.parents[3], "sample", "lm.yaml", "--checkpoint", str(bad), "--tokens", "20")
    assert done.stdout == ""
    assert one_error(done) == (
        f"error: {bad} has non-finite weights (NaN or inf) in transformer.wte.embedding_table, "
        "transformer.ln_f.gamma: the run diverged before it was saved; sample from an earlier "
        "checkpoint")


@pytest.mark.slow
def test_a_prompt_outside_the_vocabulary_prints_nothing_before_its_error(char_lm: Path) -> None:
    done = train(char_lm.parents[3], "sample", "lm.yaml", "--checkpoint", str(char_lm),
                 "--prompt", "toë", "--tokens", "20")
    assert done.stdout == ""
    assert one_error(done) == ("error: the character 'ë' is not in the vocabulary of the training "
                               "text (16 characters)")


@pytest.mark.slow
def test_bpe_text_in_cyrillic_streams_as_the_whole_sequence_decodes(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    from trainer.config import load_config
    from trainer.sample import sampler_for

    ckpt = _trained(tmp_path, "cyrillic", "dataset.tokenizer=bpe", "dataset.vocab_size=300")
    done = train(tmp_path, "sample", "lm.yaml", "--checkpoint", str(ckpt), "--prompt", "вопрос",
                 "--tokens", "60", "--seed", "3", "dataset.tokenizer=bpe", "dataset.vocab_size=300")
    assert done.returncode == 0, done.stderr
    config = load_config(tmp_path / "lm.yaml", ["dataset.tokenizer=bpe", "dataset.vocab_size=300",
                                                  f"dataset.root={tmp_path / 'corpus.txt'}"])
    whole = sampler_for(config, ckpt).text("вопрос", 60, temperature=0.8, top_k=200, seed=3)
    assert any("а" <= c <= "я" for c in whole)  # the generated text holds Cyrillic letters
    assert done.stdout == "вопрос" + whole + "\n"
