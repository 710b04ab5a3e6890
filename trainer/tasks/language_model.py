"""``task: language_model``: next-token prediction on text (nanoGPT's setting).

Data contract: ``dataset.name: tinyshakespeare`` or ``text`` (``dataset.root``: a UTF-8
file), split into the first ``1 - dataset.val_fraction`` for training and the rest for
validation, encoded by ``dataset.tokenizer`` (``char``: the training text's characters;
``bpe``: trained on it with ``dataset.vocab_size``) into token ids; batches are
``(x, y)`` int32 ``B x T`` windows (``T = dataset.block_size``, ``y`` shifted by one),
drawn at random from ``(seed, batch number)`` (datasets/windows.py). Training counts steps:
``train.max_steps`` in evaluation intervals of ``train.eval_every_steps`` (one loop
"epoch" each); each evaluation estimates the validation loss on ``train.eval_batches``
random batches (and the training loss, as nanoGPT's ``estimate_loss``), the same batches at
every evaluation of a run (fixed by its seed). Checkpoints are named by step
(``<name>-step-2000.ckpt``) and no ``epoch`` metric is logged.

Loss: the mean cross-entropy over every token (nats per token); metrics: ``val/loss``,
``val/perplexity`` (``exp`` of it), ``val/bits_per_char`` for ``char`` (loss / ln 2),
``train/loss_estimate``, ``perf/tokens_per_second``. The tokenizer is part of the run's
record (``TaskData.info["tokenizer"]``: JSON data, kept in checkpoints and MLflow), so
sampling and serving never need the training file.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from framework import nn, ops
from framework.train.callbacks import Callback

from .base import Task, TaskData

TEXT_KEYS = frozenset({("dataset", "tokenizer"), ("dataset", "vocab_size"), ("dataset", "block_size"),
                       ("dataset", "val_fraction"), ("train", "max_steps"), ("train", "eval_every_steps"),
                       ("train", "eval_batches"), ("optimizer", "schedule", "warmup_steps"),
                       ("optimizer", "schedule", "lr_decay_steps")})
TEXT_DATASETS = ("tinyshakespeare", "text")
SAMPLE_TOKENS = 200  # the sample written at each evaluation


class TokenCrossEntropy(nn.Cell):
    """Mean cross-entropy of ``(B, T, V)`` logits against ``(B, T)`` token ids."""

    def __init__(self) -> None:
        super().__init__()
        self.ce = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, logits, labels):
        v = logits.shape[-1]
        return self.ce(ops.reshape(logits, (-1, v)), ops.reshape(labels, (-1,)))


class LanguageModelTask(Task):
    name = "language_model"
    keys = TEXT_KEYS
    metric_prefix = "val"
    metrics = ("loss",)
    by_steps = True
    dynamic_axes = "sequence"  # one compiled step for every batch size and length
    monitors = ("val_loss", "val_perplexity", "eval_loss", "loss", "train_loss_estimate")
    data_sizes = {"vocab_size": 2, "block_size": 1}

    @property
    def models(self) -> dict[str, Any]:
        from ..models import LANGUAGE_MODELS

        return LANGUAGE_MODELS

    def check(self, config: Any) -> tuple[tuple[str, ...], str] | None:
        d, t = config.dataset, config.train
        if d.class_ is None and d.name not in TEXT_DATASETS:
            return ("dataset", "name"), (f"'dataset.name' of a language model must be one of "
                                         f"{', '.join(TEXT_DATASETS)}, got {d.name!r}")
        if t.max_steps is None:
            return ("train", "max_steps"), ("a language model trains by steps: set 'train.max_steps' "
                                            "(e.g. 2000)")
        if t.max_steps % t.eval_every_steps:
            return ("train", "max_steps"), (f"'train.max_steps' ({t.max_steps}) must be a multiple of "
                                            f"'train.eval_every_steps' ({t.eval_every_steps})")
        if not 0.0 < d.val_fraction < 1.0:
            return ("dataset", "val_fraction"), (f"'dataset.val_fraction' must be in (0, 1), got "
                                                 f"{d.val_fraction}")
        if config.model.class_ is None and config.model.name in self.models:
            unknown = _unknown_args(self.models[config.model.name], config.model.args)
            if unknown:
                return ("model", "args"), unknown
        if d.tokenizer == "bpe" and (d.vocab_size is None or d.vocab_size < 257):
            return ("dataset", "vocab_size"), ("'dataset.vocab_size' must be >= 257 with tokenizer: bpe "
                                               f"(the 256 bytes and merges), got {d.vocab_size}")
        return None

    def data(self, config: Any, rank: Any) -> TaskData:
        from datasets.text import corpus, split_text
        from datasets.tokenizer import train_tokenizer
        from datasets.windows import TokenWindows

        d, t = config.dataset, config.train
        text, path = corpus(d.name, d.root)
        train_text, val_text = split_text(text, d.val_fraction)
        tokenizer = train_tokenizer(d.tokenizer, train_text, d.vocab_size)
        train_ids, val_ids = tokenizer.encode(train_text), tokenizer.encode(val_text)
        shards = {"num_shards": rank.size, "shard_id": rank.rank}
        train = TokenWindows(train_ids, d.block_size, d.batch_size, t.eval_every_steps, config.seed, **shards)
        valid = TokenWindows(val_ids, d.block_size, d.batch_size, t.eval_batches, config.seed + 1)
        estimate = TokenWindows(train_ids, d.block_size, d.batch_size, t.eval_batches, config.seed + 2)
        info = {"tokenizer": tokenizer.to_dict(), "vocab_size": tokenizer.vocab_size,
                "block_size": d.block_size, "source": str(path),
                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),  # the file's bytes
                "tokens": {"train": int(len(train_ids)), "val": int(len(val_ids))}}
        return TaskData(train, valid, len(train), info, {"train_estimate": estimate,
                                                          "tokenizer": tokenizer})

    def network(self, config: Any, data: TaskData) -> Any:
        from ..models import network_for

        sizes = {"vocab_size": data.info["vocab_size"], "block_size": data.info["block_size"]}
        return network_for(config.model, self.models, sizes)

    def loss(self, config: Any) -> Any:
        return TokenCrossEntropy()

    def epochs(self, config: Any) -> int:
        return config.train.max_steps // config.train.eval_every_steps

    def finished(self, config: Any, state: Any) -> str:
        t = config.train
        more = (state.global_step // t.eval_every_steps + 1) * t.eval_every_steps
        return (f"is already at step {state.global_step} of train.max_steps={t.max_steps}; to continue, "
                f"ask for more (train.max_steps={more} or more, a multiple of "
                f"train.eval_every_steps={t.eval_every_steps})")

    def evaluate(self, config: Any, model: Any, data: TaskData) -> dict[str, float]:
        """The whole validation split in order (non-overlapping windows, not the training
        run's random estimate): loss, perplexity, bits per character, tokens read."""
        from datasets.windows import TokenWindows

        d = config.dataset
        ids = data.valid.ids
        passes = TokenWindows(ids, d.block_size, d.batch_size, len(ids), sequential=True)
        m = dict(model.eval(passes))
        m["perplexity"] = math.exp(min(m["loss"], 700.0))
        if data.extra["tokenizer"].kind == "char":
            m["bits_per_char"] = m["loss"] / math.log(2.0)
        m["tokens"] = float(passes.num_samples * d.block_size)
        return m

    def speed_line(self, config: Any, result: Any) -> str:
        tokens = result.samples_per_second * config.dataset.block_size
        return f"{result.ms_per_step:.2f} ms/step, {tokens:,.0f} tokens/s (wall clock)"

    def terminal_options(self, plan: Any) -> dict[str, Any]:
        """One bar over all steps (loss, lr, tokens/s, ETA); nanoGPT-like lines: every
        ``train.log_every`` steps the loss, lr and tokens/s, at each evaluation the losses."""
        return {"valid": self.metric_prefix, "by_steps": True, "unit": "tokens",
                "unit_per_sample": plan.config.dataset.block_size}

    def record_data(self, run: Any, config: Any, data: TaskData) -> None:
        """The text file (its SHA-256 digest), tokens per split, the tokenizer (params and
        ``tokenizer.json``), and the text as an MLflow dataset input."""
        import json

        info = data.info
        digest = info["sha256"]
        run.log_params({"data.source": info["source"], "data.sha256": digest[:16],
                        "data.vocab_size": info["vocab_size"], "data.tokens.train": info["tokens"]["train"],
                        "data.tokens.val": info["tokens"]["val"]})
        run.log_text(json.dumps(info["tokenizer"]), "tokenizer.json")
        if run.online:
            from mlflow.entities import Dataset, DatasetInput, InputTag

            profile = json.dumps({"tokens": info["tokens"], "vocab_size": info["vocab_size"]})
            inputs = [DatasetInput(Dataset(name=f"{config.dataset.name}-{split}", digest=digest[:16],
                                           source_type="local", source=json.dumps({"uri": info["source"]}),
                                           profile=profile),
                                   tags=[InputTag("mlflow.data.context", context)])
                      for split, context in (("train", "training"), ("val", "validation"))]
            run.log_inputs(inputs, {"text": {"path": info["source"], "sha256": digest}})

    def log_model(self, run: Any, config: Any, resolved: dict[str, Any], checkpoint: str,
                  data: TaskData) -> str | None:
        import warnings

        from ..mlflow_lm_model import log_language_model

        try:
            return log_language_model(run, resolved, checkpoint, data.info["tokenizer"],
                                      config.mlflow.register)
        except Exception as error:  # noqa: BLE001 - the run and its checkpoints are already logged
            warnings.warn(f"the trained model was not logged to MLflow ({type(error).__name__}: "
                          f"{error})", stacklevel=2)
            return None

    def summary_input(self, config: Any, data: TaskData) -> Any:
        return data.train.batch(0)[0][:2]  # a pure function of (seed, batch number)

    def example_batch(self, config: Any, data: TaskData | None) -> tuple[Any, Any]:
        shape = (config.dataset.batch_size, config.dataset.block_size)
        return np.zeros(shape, np.int32), np.zeros(shape, np.int32)

    def callbacks(self, plan: Any, model: Any, data: TaskData) -> list[Any]:
        from .sampling import EvaluationSample, Sampler

        config, tokenizer = plan.config, data.extra["tokenizer"]
        sampler = Sampler(model.network, tokenizer, config.dataset.block_size, config.mode)
        show = not plan.options.quiet
        return [TokenizerRecord(data.info["tokenizer"]),
                LanguageModelMetrics(model, data.valid, data.extra["train_estimate"], tokenizer.kind,
                                     config.dataset.block_size),
                EvaluationSample(sampler, SAMPLE_TOKENS, show)]


def trained_network(config: Any, tokenizer: Any, arrays: Any) -> Any:
    """The language model of ``config`` sized by ``tokenizer``, with the weights ``arrays``
    (a checkpoint's), in evaluation mode: what sampling and the served model run."""
    import framework as ms

    from ..models import network_for

    sizes = {"vocab_size": tokenizer.vocab_size, "block_size": config.dataset.block_size}
    ms.set_seed(config.seed)
    net = network_for(config.model, LanguageModelTask().models, sizes)
    ms.load_param_into_net(net, dict(arrays), strict_load=True)
    net.set_train(False)
    return net


def _unknown_args(cls: Any, args: dict[str, Any]) -> str | None:
    """Why ``args`` do not fit the zoo model ``cls`` (the data sets its sizes), or None."""
    import inspect

    parameters = inspect.signature(cls).parameters
    named = [n for n in parameters if n not in ("vocab_size", "block_size")]
    bad = [k for k in args if k not in named]
    if bad:
        return (f"'model.args' of {cls.__name__} takes {', '.join(named)} (vocab_size and block_size "
                f"come from the data), got {', '.join(map(repr, bad))}")
    for key, value in args.items():
        rule = _ARG_RULES.get(type(parameters[key].default))
        if rule is not None and not rule[1](value):
            return f"'model.args.{key}' of {cls.__name__} must be {rule[0]}, got {value!r:.40}"
    if "n_embd" in parameters and "n_head" in parameters:  # attention heads split the width
        width, heads = (args.get(k, parameters[k].default) for k in ("n_embd", "n_head"))
        if width % heads:
            return (f"'model.args.n_embd' of {cls.__name__} ({width}) must be a multiple of "
                    f"'model.args.n_head' ({heads})")
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# a zoo model's argument by its default's type: what the constructor can build with
_ARG_RULES = {int: ("a whole number >= 1", lambda v: _is_int(v) and v >= 1),
              float: ("a number in [0, 1) (a probability)",
                      lambda v: (_is_int(v) or isinstance(v, float)) and 0 <= v < 1),
              bool: ("true or false", lambda v: isinstance(v, bool))}


class LanguageModelMetrics(Callback):
    """At each evaluation: perplexity (and bits per character) of the validation loss, the
    training loss estimated on fixed batches; tokens per second of the interval.

    Every evaluation of a run reads the same windows: the validation and estimate windows'
    batches ``0 ... eval_batches - 1`` (drawn from the run's seed), rewound at each
    interval's start. So two evaluations differ only by the weights (``keep_best:
    val/loss`` and early stopping compare like with like, not one random draw with
    another), and a resumed process logs the figures of the uninterrupted run (the windows'
    own counters are not in the checkpoint)."""

    phase = "metrics"

    def __init__(self, model: Any, valid: Any, estimate: Any, kind: str, block_size: int) -> None:
        self.model, self.valid, self.estimate = model, valid, estimate
        self.kind, self.block_size = kind, block_size

    def on_train_epoch_begin(self, ctx: Any) -> None:
        for windows in (self.valid, self.estimate):
            windows.load_state_dict({"epoch": 0, "position": 0})

    def on_train_epoch_end(self, ctx: Any) -> None:
        m = ctx.metrics
        if "eval_loss" in m:
            m["eval_perplexity"] = math.exp(min(m["eval_loss"], 700.0))
            if self.kind == "char":
                m["eval_bits_per_char"] = m["eval_loss"] / math.log(2.0)
            m["train_loss_estimate"] = self.model.eval(self.estimate)["loss"]
        t = ctx.timings
        if t.epoch_wall_seconds > 0:
            m["perf/tokens_per_second"] = t.epoch_samples * self.block_size / t.epoch_wall_seconds


class TokenizerRecord(Callback):
    """Keeps the tokenizer in every checkpoint (``state_key`` ``tokenizer``): sampling,
    serving and ``train eval`` read it there; a resume refuses another tokenizer."""

    state_key = "tokenizer"

    def __init__(self, tokenizer: dict[str, Any]) -> None:
        self.tokenizer = tokenizer

    def state_dict(self) -> dict[str, Any]:
        return dict(self.tokenizer)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state != self.tokenizer:
            from framework.serialization import CheckpointError

            raise CheckpointError("the checkpoint's tokenizer differs from the one of this run's "
                                  "training text (dataset.name/root/tokenizer changed); resume with "
                                  "the same text and tokenizer")
