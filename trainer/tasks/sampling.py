"""Text from a trained language model: :class:`Sampler` and the per-evaluation sample.

A network with a state for generation (``init_state()`` and ``decode(token, pos, *state) ->
(logits, *state)``: the zoo's ``gpt`` keeps a key/value cache of ``block_size`` positions,
``lstm_lm`` its recurrent state) is fed one token per step, so each new token costs one
position's work. When the GPT's cache is full, it restarts from the last ``block_size // 2``
tokens of the text (their keys and values recomputed), so its context is between half a
window and a whole one (nanoGPT's ``generate`` re-runs the last ``block_size`` tokens for
every token). Any other causal network runs on one fixed window of ``block_size`` tokens:
while the text is shorter it fills the window from the left (the logits at the last real
position ignore the padding after it), then the window slides. Either way one input shape
for the whole generation: graph mode compiles one function, whatever the length
(``Sampler.compiled_functions`` counts them). Tokens are drawn from the softmax of the
logits over ``temperature`` (``top_k``: among the k likeliest) with a seeded generator.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

import framework as ms
from framework.graph_mode import JitFunction
from framework.train.callbacks import Callback


class Sampler:
    def __init__(self, net: Any, tokenizer: Any, block_size: int, mode: str = "graph") -> None:
        self.net, self.tokenizer, self.block_size, self.mode = net, tokenizer, block_size, mode
        self.window = np.zeros((1, block_size), np.int32)
        self.start = _start_ids(tokenizer)
        self.cached = hasattr(net, "decode") and hasattr(net, "init_state")
        self._fn = self._compiled(net.decode if self.cached else net.construct)
        # a whole window into the cache (the GPT's) in one call
        self._prefill = self._compiled(net.prefill) if self.cached and hasattr(net, "prefill") else None

    def _compiled(self, fn: Any) -> Any:
        """``fn`` as this sampler runs it: compiled (graph) or eagerly whatever the mode."""
        if self.mode == "graph":
            return ms.jit(fn)

        def eager(*args: Any) -> Any:
            with ms.pynative():
                return fn(*args)
        return eager

    @property
    def compiled_functions(self) -> int:
        """Graph mode's compiled signatures so far (at most two, whatever was generated: the
        step, and the GPT's window prefill)."""
        fns = [f for f in (self._fn, self._prefill) if isinstance(f, JitFunction)]
        return sum(len(v) for f in fns for v in f._cache.values())

    def _fill_window(self, tokens: list[int]) -> ms.Tensor:
        self.window[0, :len(tokens)] = tokens
        self.window[0, len(tokens):] = 0
        return ms.Tensor(self.window)

    def tokens(self, prompt: str, count: int, temperature: float = 1.0, top_k: int | None = None,
               seed: int = 0) -> Iterator[int]:
        """The next ``count`` token ids after ``prompt`` (an empty prompt: after ``start``)."""
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        if top_k is not None and top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        context = list(self.tokenizer.encode(prompt)) if prompt else list(self.start)
        rng = np.random.default_rng(seed)
        t = self.block_size
        was = self.net.training
        self.net.set_train(False)  # (dropout off; restored when the generator ends)
        try:
            if self.cached:
                yield from self._cached(context, count, temperature, top_k, rng)
                return
            for _ in range(count):
                recent = context[-t:]
                logits = self._fn(self._fill_window(recent)).asnumpy()[0, len(recent) - 1]
                token = _draw(logits.astype(np.float64) / temperature, top_k, rng)
                context.append(token)
                yield token
        finally:
            self.net.set_train(was)

    def _step(self, token: int, pos: int, state: tuple) -> tuple:
        out = self._fn(ms.Tensor(np.array([[token]], np.int32)), ms.Tensor(np.array(pos, np.int32)), *state)
        return out[0].asnumpy()[0].astype(np.float64), tuple(out[1:])

    def _prime_window(self, tokens: list[int]) -> tuple:
        """``(logits after the last token, caches, position)`` from one prefill of ``tokens``."""
        out = self._prefill(self._fill_window(tokens))
        return out[0].asnumpy()[0, len(tokens) - 1].astype(np.float64), tuple(out[1:]), len(tokens)

    def _cached(self, context: list[int], count: int, temperature: float, top_k: int | None,
                rng: np.random.Generator) -> Iterator[int]:
        limit = getattr(self.net, "context_limit", None)

        def prime(tokens: list[int]) -> tuple:
            if self._prefill is not None and len(tokens) > 1:
                return self._prime_window(tokens)
            state, logits = self.net.init_state(), None
            for pos, token in enumerate(tokens):
                logits, state = self._step(token, pos, state)
            return logits, state, len(tokens)

        logits, state, pos = prime(context[-limit:] if limit else context)
        for _ in range(count):
            token = _draw(logits / temperature, top_k, rng)
            context.append(token)
            yield token
            if limit and pos == limit:  # the cache is full: from the last half window again
                logits, state, pos = prime(context[-(limit // 2):])
            else:
                logits, state = self._step(token, pos, state)
                pos += 1

    def text(self, prompt: str, count: int, **options: Any) -> str:
        return self.tokenizer.decode(list(self.tokens(prompt, count, **options)))


def _start_ids(tokenizer: Any) -> list[int]:
    """What an empty prompt starts from: a newline (nanoGPT's start), or the vocabulary's
    first token when the training text had no newline (a one-line corpus, whose char
    vocabulary lacks it). Decided when the sampler is made, so before training."""
    from datasets.errors import DatasetError

    try:
        ids = list(tokenizer.encode("\n"))
    except DatasetError:
        ids = []
    return ids or [0]


def _draw(logits: np.ndarray, top_k: int | None, rng: np.random.Generator) -> int:
    """A token from the softmax of ``logits``, among the ``top_k`` likeliest (inverse CDF of
    one uniform draw)."""
    if top_k is not None and top_k < len(logits):
        cut = np.partition(logits, -top_k)[-top_k]
        logits = np.where(logits < cut, -np.inf, logits)
    cdf = np.cumsum(np.exp(logits - logits.max()))
    return int(min(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"), len(cdf) - 1))


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
