"""Text from a trained language model: :class:`Sampler` and the per-evaluation sample.

Generation runs the network on one fixed-size window of ``block_size`` tokens: while the
text is shorter, it fills the window from the left and the rest is padding (a causal model's
logits at position ``n - 1`` see only the tokens ``0 .. n - 1``, so padding after them
changes nothing); once longer, the window holds the last ``block_size`` tokens. The logits
of the last real position give the next token (``temperature``, ``top_k``, a seeded NumPy
generator). One input shape for the whole generation: graph mode compiles one function,
whatever the length (``Sampler.compiled_functions`` counts them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

import framework as ms
from framework.train.callbacks import Callback


class Sampler:
    def __init__(self, net: Any, tokenizer: Any, block_size: int, mode: str = "graph") -> None:
        self.net, self.tokenizer, self.block_size, self.mode = net, tokenizer, block_size, mode
        self.window = np.zeros((1, block_size), np.int32)
        self._fn = ms.jit(net.construct) if mode == "graph" else None

    @property
    def compiled_functions(self) -> int:
        """Graph mode's compiled signatures so far (one, whatever was generated)."""
        return sum(len(v) for v in self._fn._cache.values()) if self._fn is not None else 0

    def _logits(self, n: int) -> np.ndarray:
        was = self.net.training
        self.net.set_train(False)
        try:
            if self._fn is not None:
                out = self._fn(ms.Tensor(self.window))
            else:
                with ms.pynative():
                    out = self.net(ms.Tensor(self.window))
        finally:
            self.net.set_train(was)
        return out.asnumpy()[0, n - 1].astype(np.float64)

    def tokens(self, prompt: str, count: int, temperature: float = 1.0, top_k: int | None = None,
               seed: int = 0) -> Iterator[int]:
        """The next ``count`` token ids after ``prompt`` (an empty prompt starts at a newline)."""
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        if top_k is not None and top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        context = list(self.tokenizer.encode(prompt or "\n"))
        rng = np.random.default_rng(seed)
        t = self.block_size
        for _ in range(count):
            recent = context[-t:]
            self.window[0, :len(recent)] = recent
            self.window[0, len(recent):] = 0
            logits = self._logits(len(recent)) / temperature
            if top_k is not None and top_k < len(logits):
                cut = np.partition(logits, -top_k)[-top_k]
                logits = np.where(logits < cut, -np.inf, logits)
            p = np.exp(logits - logits.max())
            token = int(rng.choice(len(p), p=p / p.sum()))
            context.append(token)
            yield token

    def text(self, prompt: str, count: int, **options: Any) -> str:
        return self.tokenizer.decode(list(self.tokens(prompt, count, **options)))


class EvaluationSample(Callback):
    """At each evaluation: a sample of ``tokens`` tokens from the current network (seeded by
    the step), printed unless quiet and kept as ``samples/step_<n>.txt`` (``ctx.texts``,
    recorded by the MLflow logger)."""

    phase = "log"

    def __init__(self, sampler: Sampler, tokens: int = 200, show: bool = True) -> None:
        self.sampler, self.count, self.show = sampler, tokens, show

    def on_train_epoch_end(self, ctx: Any) -> None:
        if "eval_loss" not in ctx.metrics:
            return
        text = self.sampler.text("", self.count, seed=ctx.global_step)
        ctx.texts[f"samples/step_{ctx.global_step}.txt"] = text
        if self.show:
            from tqdm.auto import tqdm

            tqdm.write(f"--- sample at step {ctx.global_step} ---\n{text}\n---")
