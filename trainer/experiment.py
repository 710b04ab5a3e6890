"""Run an experiment described by an ExperimentConfig: data, model, Model.fit, MLflow.

The CLI is a thin layer over ``run_experiment``, ``compare_modes`` and ``evaluate``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

import datasets
import framework as ms
from framework import nn

from .callbacks import (
    BestCheckpoint,
    Callback,
    CheckpointConfig,
    EarlyStopping,
    LossMonitor,
    ModelCheckpoint,
    ProgressBar,
)
from .config import ExperimentConfig
from .context import RunContext
from .data import ARRAY_SOURCES, TRAIN_EVAL_SAMPLES, check_model_takes_data, custom_loaders, transforms_for
from .distributed import DistStats, Rank, check_shapes, join
from .loop import TrainingInterrupted, dataset_size
from .model import Model
from .models import network_for
from .preflight import check_accumulation, check_labels, check_outputs, sqlite_folder
from .schedule import LRSchedule, schedule_lrs

_MODES = {"graph": ms.GRAPH_MODE, "pynative": ms.PYNATIVE_MODE}


def loaders(config: ExperimentConfig, rank: Rank | None = None) -> tuple[Any, Any, Any]:
    """Training batches (this rank's shard), test batches, and a fixed training subset for
    train accuracy."""
    d = config.dataset
    rank = rank or Rank()
    spec = transforms_for(config)
    if d.class_ is not None or d.name in ARRAY_SOURCES:
        found = custom_loaders(config, spec, (rank.size, rank.rank))
        if rank.distributed and not hasattr(found[0], "num_shards"):
            import warnings

            warnings.warn("dataset.class: the trainer does not shard a framework.dataset pipeline; "
                          "give it num_shards=get_group_size(), shard_id=get_rank() yourself (else "
                          "every rank reads the same samples)", stacklevel=2)
        return found
    train = datasets.make_loader(d.name, split="train", root=d.root, batch_size=d.batch_size,
                                 shuffle=d.shuffle, seed=config.seed, limit=d.limit, transforms=spec,
                                 num_shards=rank.size, shard_id=rank.rank)
    eval_batch = max(d.batch_size, 256)
    test = datasets.make_loader(d.name, split="test", root=d.root, batch_size=eval_batch,
                                shuffle=False, drop_remainder=False, limit=d.test_limit,
                                transforms=spec)
    subset = min(TRAIN_EVAL_SAMPLES, train.num_samples)
    train_subset = datasets.make_loader((train.images[:subset], train.labels[:subset]),
                                        batch_size=eval_batch, shuffle=False, drop_remainder=False)
    return train, test, train_subset


def build_model_for(config: ExperimentConfig) -> tuple[Model, nn.Cell]:
    """Network, loss and optimizer from the config (parameters drawn from ``seed``)."""
    ms.set_seed(config.seed)
    net = network_for(config.model)
    if config.loss.name == "cross_entropy" or config.loss.label_smoothing:
        loss = nn.CrossEntropyLoss(reduction=config.loss.reduction,
                                   label_smoothing=config.loss.label_smoothing)
    else:
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=config.loss.reduction)
    o = config.optimizer
    params = net.trainable_params()
    if o.exclude_bias_and_norm and o.weight_decay:  # MindSpore's group params
        plain = [p for p in params if p.name.endswith("bias") or "gamma" in p.name
                 or "beta" in p.name]
        decay = [p for p in params if all(p is not q for q in plain)]
        params = [{"params": decay, "weight_decay": o.weight_decay}, {"params": plain,
                  "weight_decay": 0.0}, {"order_params": net.trainable_params()}]
    if o.name == "adam":
        opt = nn.Adam(params, o.learning_rate, weight_decay=o.weight_decay)
    elif o.name == "adamw":  # decoupled weight decay, MindSpore's AdamWeightDecay
        opt = nn.AdamWeightDecay(params, o.learning_rate, weight_decay=o.weight_decay)
    elif o.name == "rmsprop":
        opt = nn.RMSProp(params, o.learning_rate, decay=o.decay, momentum=o.momentum,
                         centered=o.centered, weight_decay=o.weight_decay)
    elif o.name == "lamb":
        opt = nn.Lamb(params, o.learning_rate, weight_decay=o.weight_decay)
    elif o.name == "sgd":
        opt = nn.SGD(params, o.learning_rate, momentum=o.momentum, weight_decay=o.weight_decay)
    else:
        opt = nn.Momentum(params, o.learning_rate, o.momentum, weight_decay=o.weight_decay)
    model = Model(net, loss, opt, metrics={"accuracy", "loss"}, config=config.to_dict())
    accumulate = config.train.accumulate_grad_batches
    if accumulate > 1:
        from .train_cells import AccumulateTrainOneStepCell

        model.train_network = AccumulateTrainOneStepCell(nn.WithLossCell(net, loss), opt,
                                                         accumulate, o.clip_grad_norm)
    elif o.clip_grad_norm is not None:
        from .train_cells import ClipGradTrainOneStepCell

        model.train_network = ClipGradTrainOneStepCell(nn.WithLossCell(net, loss), opt,
                                                       o.clip_grad_norm)
    return model, net


class StepRecorder(Callback):
    """Per-step loss and wall-clock step time (``Timings.step_wall_seconds``), for
    summaries, tables and figures."""

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.losses: list[float] = []
        self.seconds: list[float] = []
        self.samples = 0

    def on_train_step_end(self, ctx: RunContext) -> None:
        self.steps.append(ctx.global_step)
        self.losses.append(float(ctx.loss) if ctx.loss is not None else float("nan"))
        self.seconds.append(ctx.timings.step_wall_seconds)
        self.samples += ctx.batch_size


class TrainAccuracy(Callback):
    """Accuracy on a fixed subset of the training data at evaluation epochs
    (``train_accuracy``, logged as ``train/accuracy``), next to the test figures."""

    order = 40  # before the MLflow logger reads the epoch's metrics

    def __init__(self, model: Model, loader: Any, every: int) -> None:
        self.model, self.loader, self.every = model, loader, every

    def on_train_epoch_end(self, ctx: RunContext) -> None:
        if ctx.epoch % self.every == 0:
            ctx.metrics["train_accuracy"] = self.model.eval(self.loader)["accuracy"]


@dataclass
class RunResult:
    """What a run did. Speeds are wall-clock over the steps this process ran (compilation
    excluded, data loading included): the same figures as the MLflow ``perf/*`` metrics."""

    mode: str
    steps: list[int] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    step_seconds: list[float] = field(default_factory=list)  # wall clock per step
    compile_seconds: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)  # the test set's, after training
    seconds: float = 0.0
    batch_size: int = 0
    run_id: str | None = None
    checkpoint: str | None = None
    offline_log: str | None = None  # where the run was logged when the store was unreachable
    nothing_to_train: str | None = None  # why a resumed run had no step left (no MLflow run made)
    samples: int = 0
    ir_dir: str | None = None
    run_url: str | None = None
    model_uri: str | None = None
    best_checkpoint: str | None = None  # checkpoint.keep_best: the best epoch's file

    @property
    def ms_per_step(self) -> float:
        total = sum(self.step_seconds)
        return total / len(self.step_seconds) * 1000 if self.step_seconds else float("nan")

    @property
    def samples_per_second(self) -> float:
        total = sum(self.step_seconds)
        return (self.samples or self.batch_size * len(self.step_seconds)) / total if total else float("nan")


def _context(config: ExperimentConfig, mode: str, ir_dir: str | None) -> None:
    if config.device == "cuda" and mode == "pynative":
        import warnings

        warnings.warn("device cuda applies to graph mode; PyNative runs its NumPy kernels on the CPU",
                      stacklevel=2)
    ms.set_context(mode=_MODES[mode], device_target="GPU" if config.device == "cuda" else "CPU",
                   tuning=config.graph.tuning, save_graphs=bool(ir_dir),
                   save_graphs_path=ir_dir or os.path.join(config.ir_dir, mode))


def run_experiment(config: ExperimentConfig, *, resume: str | None = None, quiet: bool = False,
                   checkpoint_dir: str | None = None, parent_run_id: str | None = None,
                   run_name: str | None = None, log: bool = True, progress: str | None = None,
                   source: str | None = None, tags: dict[str, str] | None = None,
                   callbacks: list[Callback] = ()) -> RunResult:
    """Train and evaluate ``config`` in ``config.mode``; log the run to MLflow.

    ``quiet`` drops the progress bar and loss lines; ``progress`` (a label) keeps only a
    labelled bar. A resume continues the MLflow run its checkpoint was logged to.
    ``source`` is the command line recorded as ``mlflow.source.name``. ``tags`` are added
    to the run's tags; ``callbacks`` run with the run's own (a sweep's pruning reporter,
    trainer/sweep/).
    """
    from .mlflow_logger import MLflowLogger, git_commit, tracking_uri
    from .mlflow_record import resolved_config

    mode = config.mode
    rank = join(config.dist.timeout)  # one rank of a data-parallel job (mpirun, --nproc), or the only one
    rank.check("the config hash", config.hash())
    if rank.distributed and config.device == "cuda" and mode == "graph":
        from .config import ConfigError

        raise ConfigError("device: cuda with several ranks is not supported yet (graph mode's "
                          "all-reduce reads host memory); use device: cpu")
    if not rank.leader:  # rank 0 alone writes checkpoints, IR and the MLflow run
        quiet, log, progress = True, False, None
    ckpt_dir = checkpoint_dir or config.checkpoint_dir
    ir_dir = os.path.join(config.ir_dir, mode) if config.ir.save and mode == "graph" else None
    ir_dir = ir_dir if rank.leader else None
    uri = tracking_uri(config.mlflow.tracking_uri)
    check_outputs(output_places(config, mode, ckpt_dir, ir_dir, uri if log else None))
    asked = resume
    if resume is not None:
        resume, finished = rank.agree(resume_point(config, ckpt_dir, resume) if rank.leader else None)
        if finished:
            return RunResult(mode, nothing_to_train=finished)
    _context(config, mode, ir_dir)
    train, test, train_subset = loaders(config, rank)
    check_accumulation(config.train.accumulate_grad_batches, config.train.epochs, dataset_size(train))
    if config.model.class_ is None:
        check_labels({"train": train, "test": test}, config.model.num_classes, config.dataset.name)
    model, net = build_model_for(config)
    if rank.distributed:
        check_shapes(net)
    classes = check_model_takes_data(net, {"train": train, "test": test},
                                     config.model.class_ or config.model.name)
    recorder = StepRecorder()
    c = config.checkpoint
    ckpt = ModelCheckpoint(config.name.replace("/", "_"), ckpt_dir, CheckpointConfig(
        save_checkpoint_steps=c.save_steps, save_checkpoint_seconds=c.save_seconds or 0,
        keep_checkpoint_max=c.keep_max))
    callbacks = [recorder, ckpt, *callbacks] if rank.leader else [recorder, *callbacks]
    if rank.distributed:
        callbacks.append(DistStats(rank))
    best = BestCheckpoint(ckpt, c.keep_best.replace("/", "_")) if c.keep_best and rank.leader else None
    if best is not None:
        callbacks.append(best)
    stop = config.train.early_stopping
    if stop.monitor is not None:
        early = EarlyStopping(stop.monitor.replace("/", "_"), stop.patience, stop.min_delta,
                              stop.mode, restore_best_weights=stop.restore_best_weights,
                              verbose=not quiet)
        early.order = 45  # after TrainAccuracy (40) fills train_accuracy, before MLflow (50)
        callbacks.append(early)
    sched = config.optimizer.schedule
    if sched.name != "constant" or sched.warmup_epochs:
        callbacks.append(LRSchedule(schedule_lrs(sched, config.optimizer.learning_rate,
                                                 config.train.epochs, dataset_size(train))))
    if train_subset is not None:  # None: a pipeline from dataset.class (no arrays to subset)
        callbacks.insert(2, TrainAccuracy(model, train_subset, config.train.eval_every))
    # the NaN/Inf loss check runs whatever the verbosity (quiet: it prints nothing)
    if not quiet:
        callbacks.append(ProgressBar())
    elif progress:
        callbacks.append(ProgressBar(label=progress))
    callbacks.append(LossMonitor(0 if quiet else config.train.log_every))
    name = run_name or config.mlflow.run_name or f"{config.name}-{mode}"
    resolved = resolved_config(config, mode=mode, checkpoint_dir=ckpt_dir, tracking_uri=uri,
                               run_name=name)
    run = None
    if log:
        run = open_run(config, uri, name, parent_run_id, resume)
        record_inputs(run, config, resolved, train, test, source, git_commit(),
                      {"mode": mode, "device": config.device, "experiment": config.name,
                       "config_hash": config.hash(), "world_size": str(rank.size), **(tags or {})},
                      {"resumed_from": asked, "resumed_checkpoint": resume} if resume else {})
        callbacks.append(MLflowLogger(run, config.train.log_every))
    start = time.perf_counter()
    status = "FAILED"
    ctx = None
    try:
        ctx = model.fit(config.train.epochs, train, test, valid_frequency=config.train.eval_every,
                        callbacks=callbacks, resume_from=resume)
        metrics = {k[5:]: v for k, v in ctx.metrics.items() if k.startswith("eval_")}
        if not metrics:  # the last epoch was not validated
            metrics = model.eval(test)
            if run is not None:
                for key, value in metrics.items():
                    run.log_metric(f"eval/{key}", value, ctx.global_step)
        result = RunResult(mode, recorder.steps, recorder.losses, recorder.seconds,
                           ctx.timings.first_compile_seconds, dict(metrics),
                           time.perf_counter() - start, config.dataset.batch_size,
                           run.run_id if run and run.online else None, ctx.latest_checkpoint,
                           None if run is None or run.online else str(run.offline_path),
                           samples=recorder.samples, ir_dir=ir_dir,
                           run_url=run.url if run is not None else None)
        result.best_checkpoint = str(best.path) if best is not None and best.path else None
        status = "FINISHED"
    except (KeyboardInterrupt, TrainingInterrupted):
        status = "KILLED"  # Ctrl-C: a checkpoint was saved, the run stopped on purpose
        raise
    finally:
        if run is not None:
            finish_run(run, ckpt, ir_dir)
            if status != "FINISHED":
                run.end(status)
    if run is not None:
        try:
            if config.mlflow.log_model and result.checkpoint:
                result.model_uri = log_trained_model(run, config, resolved, result.checkpoint, test,
                                                     classes)
        finally:
            run.end(status)
    return result


def log_trained_model(run: Any, config: ExperimentConfig, resolved: dict[str, Any], checkpoint: str,
                      test: Any, classes: int) -> str | None:
    """The pyfunc model (``runs:/<id>/model``); a failure to log it warns, training stands.
    Not for a ``framework.dataset`` pipeline (its preprocessing is the user's code)."""
    import warnings

    from .mlflow_model import log_model

    if hasattr(test, "create_tuple_iterator"):
        warnings.warn("the trained model was not logged to MLflow: dataset.class gives a pipeline, "
                      "whose preprocessing the logged model cannot repeat", stacklevel=2)
        return None
    try:
        d = config.dataset
        raw = getattr(test, "raw_examples", None)
        if raw is None:
            raw = datasets.load(d.name, "test", d.root, download=False)[0][:2]  # as the files hold them
        return log_model(run, resolved, checkpoint, np.asarray(raw), classes,
                         config.mlflow.register)
    except Exception as error:  # noqa: BLE001 - the run and its checkpoints are already logged
        warnings.warn(f"the trained model was not logged to MLflow ({type(error).__name__}: {error})",
                      stacklevel=2)
        return None


def open_run(config: ExperimentConfig, uri: str, name: str, parent_run_id: str | None,
             resume: str | None) -> Any:
    """A new MLflow run, or, for a resume, the run its checkpoint was logged to (tagged
    ``resumes``: each resume's checkpoint and time)."""
    from .mlflow_logger import MLflowRun, StoreUnreachable

    previous = previous_run_id(resume, uri) if resume else None
    common = {"parent_run_id": parent_run_id, "system_metrics": config.mlflow.system_metrics}
    if previous:
        try:
            run = MLflowRun(uri, config.mlflow.experiment, name, run_id=previous, fallback=False,
                            **common)
            earlier = run.client.get_run(previous).data.tags.get("resumes", "")
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            run.set_tags({"resumes": "; ".join(filter(None, [earlier, f"{stamp} from {resume}"]))})
            return run
        except StoreUnreachable:
            pass  # the run is gone (or the store is): a new run, or the offline file
    return MLflowRun(uri, config.mlflow.experiment, name, **common)


def previous_run_id(checkpoint: str, uri: str) -> str | None:
    """The MLflow run a checkpoint was logged to, when it was logged to ``uri``."""
    from .checkpoint import read_train_state

    try:
        state = read_train_state(checkpoint)[1]
    except Exception:  # noqa: BLE001 - Model.fit reports a bad checkpoint properly
        return None
    logged = state.callbacks.get("MLflowLogger#1") or {}
    return logged.get("run_id") if logged.get("tracking_uri") == uri else None


def record_inputs(run: Any, config: ExperimentConfig, resolved: dict[str, Any], train: Any, test: Any,
                  source: str | None, commit: str, tags: dict[str, str], resumed: dict[str, str]) -> None:
    """Params (the resolved config; a continued run keeps its first values and lists the
    changed ones in the ``resume_changed_params`` tag), the data read, tags, config.yaml."""
    from .dotted import flatten
    from .mlflow_logger import versions
    from .mlflow_record import log_data, source_tags

    params = flatten(resolved)
    existing = run.params() if run.online else {}
    changed = {k: v for k, v in params.items() if k in existing and existing[k] != str(v)[:6000]}
    run.log_params({k: v for k, v in params.items() if k not in existing})
    log_data(run, config, train, test)
    extra = {"resume_changed_params": ", ".join(f"{k}={v}" for k, v in changed.items())} if changed else {}
    run.set_tags({**tags, "git_commit": commit, **versions(), **source_tags(source, commit),
                  **resumed, **extra})
    run.log_text(yaml.safe_dump(resolved, sort_keys=False), "config.yaml")


def finish_run(run: Any, ckpt: ModelCheckpoint, ir_dir: str | None) -> None:
    """Log exactly this run's checkpoint files (its prefix, the final save included) and IR."""
    from .checkpoint import find_checkpoints
    from .mlflow_record import log_run_files

    files = find_checkpoints(ckpt.directory, ckpt.prefix)[::-1]
    best = ckpt.directory / f"{ckpt.prefix}-best.ckpt"  # checkpoint.keep_best
    if best.is_file():
        files.append(best)
    log_run_files(run, files, ir_dir)
    run.flush()


def resume_point(config: ExperimentConfig, ckpt_dir: str, resume: str) -> tuple[str, str | None]:
    """The checkpoint a resume starts from (``last``: the newest of this experiment's runs)
    and, when it has no step left to train, why."""
    from .checkpoint import latest_valid, read_train_state

    if resume in ("last", "latest"):
        found = latest_valid(ckpt_dir, config.name.replace("/", "_"), runs=True)
        if found is None:
            return resume, None  # Model.fit warns and starts from the beginning
        path, state = found[0], found[2]
    else:
        path, state = Path(resume), read_train_state(resume)[1]
    if state.next_position()[0] >= config.train.epochs:
        return str(path), (f"nothing to train: {path} is already at epoch {state.epoch} of "
                           f"train.epochs={config.train.epochs}; to continue, ask for more "
                           f"(train.epochs={state.epoch + 1} or more)")
    return str(path), None


def output_places(config: ExperimentConfig, mode: str, ckpt_dir: str, ir_dir: str | None,
                  uri: str | None) -> list[tuple[str | None, str, str]]:
    """Every folder a run writes to, with how to change it (checked before the first step)."""
    places: list[tuple[str | None, str, str]] = [
        (ckpt_dir, "checkpoint folder", "set checkpoint.dir to a writable folder")]
    if ir_dir:
        places.append((ir_dir, "IR folder", "set ir.dir to a writable folder or ir.save: false"))
    if mode == "graph":
        from framework.backend.tvm.runtime.cache import cache_dir

        places.append((str(cache_dir()), "compiled-kernel cache",
                       "set TWINMODE_CACHE_DIR to a writable folder"))
    if uri is not None:
        folder = sqlite_folder(uri)
        places.append((str(folder) if folder else None, f"MLflow store folder (of {uri})",
                       "set mlflow.tracking_uri or MLFLOW_TRACKING_URI to a writable place"))
    return places


def evaluate(config: ExperimentConfig, checkpoint: str | Path) -> dict[str, float]:
    """Test-set metrics of the network in ``checkpoint`` (any mode's checkpoint)."""
    from framework.serialization import read_arrays

    arrays, _ = read_arrays(checkpoint)  # a bad checkpoint is reported before any data is read
    _context(config, config.mode, None)
    _, test, _ = loaders(config)
    if config.model.class_ is None:
        check_labels({"test": test}, config.model.num_classes, config.dataset.name)
    model, net = build_model_for(config)
    ms.load_param_into_net(net, {k: v for k, v in arrays.items()}, strict_load=True)
    return model.eval(test)


def dump_ir(config: ExperimentConfig, out: str) -> dict[str, Any]:
    """Trace and compile the graph-mode train step into ``out`` without training or data."""
    from .step import CompiledStep

    _context(config, "graph", out)
    model, _ = build_model_for(config)
    d, m = config.dataset, config.model
    size = d.resize or 28
    x = np.zeros((d.batch_size, m.num_channel, size, size), np.float32)
    y = np.zeros((d.batch_size,), np.int32)
    model.train_network.set_train(True)  # the flags a training run compiles with
    step = CompiledStep(model.train_network)
    summary = step.function.compile(ms.Tensor(x), ms.Tensor(y), load=False)
    ms.set_context(save_graphs=False)
    return summary
