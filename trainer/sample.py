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
from framework.train.checkpoint import CheckpointRead

from .config import ConfigError, ExperimentConfig
from .run_folders import checkpoint_of


def sampler_for(config: ExperimentConfig, checkpoint: str | Path | CheckpointRead,
                mode: str | None = None) -> Any:
    """A :class:`~trainer.tasks.sampling.Sampler` of the checkpoint's network and tokenizer."""
    from datasets.errors import DatasetError
    from datasets.tokenizer import tokenizer_from_dict

    from .tasks.language_model import trained_network
    from .tasks.sampling import Sampler

    if config.task != "language_model":
        raise ConfigError(f"train sample needs a language model (task: language_model); "
                          f"{config.name} is task: {config.task}")
    read = checkpoint if isinstance(checkpoint, CheckpointRead) else checkpoint_of(config, checkpoint)
    saved = read.state.callbacks.get("tokenizer")
    if saved is None:
        raise CheckpointError(f"{read.path} holds no tokenizer (it was not written by a language-model "
                              "run)")
    try:
        tokenizer = tokenizer_from_dict(saved)
    except DatasetError as error:
        raise CheckpointError(f"{read.path}: {error}") from None
    net = trained_network(config, tokenizer, read.arrays)
    bad = non_finite_parameters(net)
    if bad:
        shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        raise CheckpointError(f"{read.path} has non-finite weights (NaN or inf) in {shown}: the run "
                              "diverged before it was saved; sample from an earlier checkpoint")
    return Sampler(net, tokenizer, config.dataset.block_size, mode or config.mode)


def non_finite_parameters(net: Any) -> list[str]:
    """The names of ``net``'s parameters holding a NaN or an infinity (a network that gives
    no meaningful logits: every draw would be the same token)."""
    import numpy as np

    return [name for name, param in net.parameters_and_names()
            if not np.isfinite(param.asnumpy()).all()]


def sample(config: ExperimentConfig, checkpoint: str | Path | CheckpointRead, prompt: str = "",
           tokens: int = 500, temperature: float = 0.8, top_k: int | None = 200, seed: int = 0,
           mode: str | None = None,
           write: Callable[[str], None] | None = None) -> str:
    """``prompt`` and ``tokens`` tokens after it; each piece goes to ``write`` as it comes."""
    sampler = sampler_for(config, checkpoint, mode)
    sampler.tokenizer.encode(prompt)  # a character the vocabulary lacks: refused before any output
    write = write or (lambda text: None)
    write(prompt)
    decoder = IncrementalDecoder(sampler.tokenizer)
    for token in sampler.tokens(prompt, tokens, temperature=temperature, top_k=top_k, seed=seed):
        write(decoder.add(token))
    write(decoder.flush())
    return prompt + sampler.tokenizer.decode(decoder.ids)


class IncrementalDecoder:
    """Text of a stream of token ids, piece by piece, equal in the end to decoding the whole
    sequence. A byte-level BPE token may hold part of a character's UTF-8 bytes (any script
    beyond ASCII): decoded alone it gives U+FFFD. The ids since the last whole character are
    kept until they decode to whole characters (at most ``hold`` of them: bytes that never
    complete a character are invalid UTF-8, written as the whole-sequence decode writes them)."""

    def __init__(self, tokenizer: Any, hold: int = 8) -> None:
        self.tokenizer, self.hold = tokenizer, hold
        self.ids: list[int] = []
        self._pending: list[int] = []

    def add(self, token: int) -> str:
        self.ids.append(token)
        self._pending.append(token)
        text = self.tokenizer.decode(self._pending)
        if text.endswith("\ufffd") and len(self._pending) < self.hold:
            return ""
        self._pending = []
        return text

    def flush(self) -> str:
        text = self.tokenizer.decode(self._pending) if self._pending else ""
        self._pending = []
        return text
