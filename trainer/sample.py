"""``train sample``: text from a language model's checkpoint, printed as it is generated.

The network is rebuilt from the experiment file, the tokenizer read from the checkpoint
(kept there by every language-model run: ``callbacks["tokenizer"]``), so sampling needs
neither the training text nor the run. ``checkpoint="last"`` takes the newest checkpoint
of the experiment's runs of this config (trainer/run_folders.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from framework.serialization import CheckpointError

from .config import ConfigError, ExperimentConfig
from .run_folders import checkpoint_of


def sampler_for(config: ExperimentConfig, checkpoint: str | Path, mode: str | None = None) -> Any:
    """A :class:`~trainer.tasks.sampling.Sampler` of the checkpoint's network and tokenizer."""
    from datasets.tokenizer import tokenizer_from_dict

    from .tasks.language_model import trained_network
    from .tasks.sampling import Sampler

    if config.task != "language_model":
        raise ConfigError(f"train sample needs a language model (task: language_model); "
                          f"{config.name} is task: {config.task}")
    read = checkpoint_of(config, checkpoint)
    saved = read.state.callbacks.get("tokenizer")
    if saved is None:
        raise CheckpointError(f"{read.path} holds no tokenizer (it was not written by a language-model "
                              "run)")
    tokenizer = tokenizer_from_dict(saved)
    net = trained_network(config, tokenizer, read.arrays)
    return Sampler(net, tokenizer, config.dataset.block_size, mode or config.mode)


def sample(config: ExperimentConfig, checkpoint: str | Path, prompt: str = "", tokens: int = 500,
           temperature: float = 0.8, top_k: int | None = 200, seed: int = 0, mode: str | None = None,
           write: Callable[[str], None] | None = None) -> str:
    """``prompt`` and ``tokens`` tokens after it; each piece goes to ``write`` as it comes."""
    sampler = sampler_for(config, checkpoint, mode)
    write = write or (lambda text: None)
    write(prompt)
    pieces = []
    for token in sampler.tokens(prompt, tokens, temperature=temperature, top_k=top_k, seed=seed):
        piece = sampler.tokenizer.decode([token])
        pieces.append(piece)
        write(piece)
    return prompt + "".join(pieces)
