"""Experiment configuration: a strict, typed YAML schema with defaults.

The schema is the dataclasses below, read by pydantic (``build_config``): leaves are strict
(``Int`` takes no ``3.0``, ``"3"`` nor ``true``; a ``Float`` takes an integer, as YAML's
``1`` for ``1.0``), sections are mappings whose unknown keys are errors. An error names the
file, the line, the key and, for a misspelt key or a common alias (``lr``), the valid one
(trainer/config_errors.py). Duplicate keys, empty and non-text files are errors too.
Numbers follow YAML 1.2 (``1e-3`` is a float). ``KEY=VALUE`` overrides (``train.epochs=1``)
are validated exactly like the file; a section override (``dataset={name: fashion-mnist}``)
merges into the section. Range checks (trainer/config_checks.py) read the typed config and
change nothing; defaults that depend on other keys are filled by ``resolve_defaults``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import ConfigDict, Field, Strict, TypeAdapter, ValidationError

from framework.train import config_hash
from framework.train.dotted import flatten

from .config_checks import check_values
from .config_errors import ConfigError, Where, schema_error
from .config_yaml import parse_override, read_yaml

__all__ = ["ConfigError", "ExperimentConfig", "apply_overrides", "build_config", "load_config",
           "parse_override", "read_yaml", "resolve_defaults"]


# The YAML types, exact (pydantic's strict mode per leaf: a section is a plain mapping).
Int = Annotated[int, Strict()]
Float = Annotated[float, Strict()]  # an integer too, stored as a float
Str = Annotated[str, Strict()]
Bool = Annotated[bool, Strict()]
ClassKey = Annotated[Str | None, Field(alias="class")]  # the YAML key `class` is the field `class_`
_T = TypeVar("_T")


def _section(cls: type[_T]) -> type[_T]:
    """A schema dataclass: an unknown key is an error (``did you mean``), not dropped."""
    cls.__pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[attr-defined]
    return cls


@_section
@dataclass
class ModelConfig:
    """A built-in model (``name``, see trainer/models) or the user's own class
    (``class: FILE.py:Class`` or ``pkg.mod:Class`` with ``args``, trainer/user_code.py).
    The YAML key ``class`` is the field ``class_``. With ``class``, ``num_classes`` is
    ``args.num_classes`` when given (for the record; labels are checked against the
    network's outputs, trainer/data.py)."""

    name: Str = "lenet5"
    num_classes: Int = 10
    num_channel: Int = 1
    class_: ClassKey = None
    args: dict[Str, Any] = field(default_factory=dict)


@_section
@dataclass
class DatasetConfig:
    """A named dataset (``name``, datasets/; ``npz``: ``root`` is the ``.npz`` file) or the
    user's own function (``class: FILE.py:make_dataset`` with ``args``; the return contract
    is in trainer/data.py). The YAML key ``class`` is the field ``class_``."""

    name: Str = "mnist"
    root: Str | None = None
    class_: ClassKey = None
    args: dict[Str, Any] = field(default_factory=dict)
    batch_size: Int = 32
    resize: Int | None = 32
    # [mean, std] of all channels, or per channel: [[0.49, 0.48, 0.45], [0.25, 0.24, 0.26]]
    normalize: list[Float | list[Float]] | None = field(default_factory=lambda: [0.1307, 0.3081])
    shuffle: Bool = True
    limit: Int | None = None
    test_limit: Int | None = None
    # task: language_model (trainer/tasks/language_model.py)
    tokenizer: Literal["char", "bpe"] = "char"
    vocab_size: Int | None = None  # bpe: the vocabulary to train
    block_size: Int = 64  # tokens per window
    val_fraction: Float = 0.1  # the last 10% of the text validates


@_section
@dataclass
class ScheduleConfig:
    """Per-step learning rates with ``optimizer.learning_rate`` as the peak (trainer/schedule.py)."""

    name: Literal["constant", "cosine", "exponential", "piecewise"] = "constant"
    warmup_epochs: Int = 0
    min_lr: Float = 0.0  # cosine
    decay_rate: Float = 0.1  # exponential
    decay_epochs: Int = 1  # exponential
    is_stair: Bool = False  # exponential
    milestones: list[Int] | None = None  # piecewise: epochs where the LR changes
    values: list[Float] | None = None  # piecewise: one more than milestones
    warmup_steps: Int = 0  # in steps (a language model): linear warm-up, then ``name`` over
    lr_decay_steps: Int | None = None  # ... this many steps from the start (then min_lr)


@_section
@dataclass
class OptimizerConfig:
    # adamw: nn.AdamWeightDecay; rmsprop: nn.RMSProp (momentum, decay, centered); lamb: nn.Lamb
    name: Literal["momentum", "sgd", "adam", "adamw", "rmsprop", "lamb"] = "momentum"
    learning_rate: Float = 0.01
    momentum: Float | None = None  # momentum, sgd, rmsprop; null: 0.9 (rmsprop: 0, MindSpore's)
    weight_decay: Float = 0.0
    decay: Float = 0.9  # rmsprop: moving-average factor of the squared gradients
    centered: Bool = False  # rmsprop: divide by the gradients' variance, not their mean square
    beta1: Float = 0.9  # adam, adamw, lamb: moment decay rates
    beta2: Float = 0.999
    eps: Float | None = None  # adam, adamw, lamb; null: the optimizer's own (MindSpore's defaults)
    # adamw: false is MindSpore's nn.AdamWeightDecay (no bias correction); true is PyTorch's
    # AdamW (mindspore.experimental.optim.AdamW: bias-corrected moments, eps 1e-8 by default)
    bias_correction: Bool = False
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    clip_grad_norm: Float | None = None  # scale gradients to this global L2 norm at most
    exclude_bias_and_norm: Bool = False  # weight_decay not on biases nor BatchNorm gamma/beta


@_section
@dataclass
class LossConfig:
    name: Literal["softmax_cross_entropy", "cross_entropy"] = "softmax_cross_entropy"
    reduction: Literal["mean", "sum"] = "mean"
    label_smoothing: Float = 0.0  # in [0, 1): targets (1 - e) * one_hot + e / classes


@_section
@dataclass
class EarlyStoppingConfig:
    """``framework.train.callbacks.EarlyStopping`` from YAML; off while ``monitor`` is null.
    ``loss`` is the epoch's mean training loss; ``eval_*`` need an evaluated epoch."""

    monitor: Str | None = None
    patience: Int = 3
    min_delta: Float = 0.0
    mode: Literal["auto", "min", "max"] = "auto"
    restore_best_weights: Bool = False


@_section
@dataclass
class TrainConfig:
    epochs: Int = 3
    eval_every: Int = 1
    log_every: Int = 50
    early_stopping: EarlyStoppingConfig = field(default_factory=EarlyStoppingConfig)
    accumulate_grad_batches: Int = 1  # apply the mean gradient of N batches every N steps
    # task: language_model trains by steps, evaluating every eval_every_steps on eval_batches
    max_steps: Int | None = None
    eval_every_steps: Int = 250
    eval_batches: Int = 20


@_section
@dataclass
class CheckpointSection:
    dir: Str | None = None  # default: checkpoints/<name>
    save_steps: Int | None = 500
    save_seconds: Float | None = None
    keep_max: Int = 5
    keep_best: Str | None = None  # also keep <prefix>-best.ckpt: the best epoch by this metric
    # the trained weights also as <prefix>-weights.ckpt (MindSpore's) or .safetensors (trainer/export.py)
    format: Literal["twinmode", "mindspore", "safetensors"] = "twinmode"


@_section
@dataclass
class MlflowConfig:
    tracking_uri: Str | None = None  # default: $MLFLOW_TRACKING_URI, else sqlite:///mlflow.db
    experiment: Str = "twinmode"
    run_name: Str | None = None
    system_metrics: Bool = True  # MLflow's system/* metrics (CPU, memory, disk) while training
    log_model: Bool = True  # the trained network as an MLflow pyfunc model (runs:/<id>/<experiment name>)
    register: Str | None = None  # also register that model under this name in the model registry


@_section
@dataclass
class IrConfig:
    save: Bool = False
    dir: Str | None = None  # default: ir/<name>


@_section
@dataclass
class GraphConfig:
    tuning: Str | Int = "off"  # graph-mode kernel tuning: off, trials per task, or "60s"


@_section
@dataclass
class DistConfig:
    """Data parallelism on MPI: ``nproc`` ranks (``train run`` starts them with the dist
    extra's ``mpiexec``), on the machines of ``hosts`` (passed to MPICH's ``-hosts``).
    ``timeout``: seconds a rank waits in a collective for the others before the job ends
    naming the rank that did not arrive (null: ``TWINMODE_COLLECTIVE_TIMEOUT``, else 300)."""

    nproc: Int = 1
    hosts: list[Str] | None = None
    timeout: Float | None = None


@_section
@dataclass
class ExperimentConfig:
    name: Str = "experiment"
    task: Literal["classification", "language_model"] = "classification"  # trainer/tasks/
    seed: Int = 0
    mode: Literal["graph", "pynative"] = "graph"
    device: Literal["cpu", "cuda"] = "cpu"
    # fp32, or mixed precision: amp O2 in bfloat16/float16 with dynamic loss scaling (trainer/build.py)
    precision: Literal["fp32", "bf16", "fp16"] = "fp32"
    model: ModelConfig = field(default_factory=ModelConfig)
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    optimizer: OptimizerConfig = field(default_factory=OptimizerConfig)
    loss: LossConfig = field(default_factory=LossConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    checkpoint: CheckpointSection = field(default_factory=CheckpointSection)
    mlflow: MlflowConfig = field(default_factory=MlflowConfig)
    ir: IrConfig = field(default_factory=IrConfig)
    graph: GraphConfig = field(default_factory=GraphConfig)
    dist: DistConfig = field(default_factory=DistConfig)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for section in ("model", "dataset"):
            out[section]["class"] = out[section].pop("class_")  # the YAML key
        return out

    def flat(self) -> dict[str, Any]:
        """Dotted keys -> values (MLflow params)."""
        return flatten(self.to_dict())

    def hash(self) -> str:
        """The one config digest: ``framework.train.config_hash`` of ``to_dict()``, what a
        checkpoint stores (``Model(config=config.to_dict())``) and a resume compares, the
        run's ``config_hash`` tag and what the ranks of a job agree on."""
        return config_hash(self.to_dict())

    @property
    def checkpoint_dir(self) -> str:
        return self.checkpoint.dir or str(Path("checkpoints") / self.name)

    @property
    def ir_dir(self) -> str:
        return self.ir.dir or str(Path("ir") / self.name)


# -- the schema engine ------------------------------------------------------------------------
@functools.cache
def _adapter() -> TypeAdapter:
    return TypeAdapter(ExperimentConfig)


def build_config(data: Any, where: Where = lambda path: "config") -> ExperimentConfig:
    """``data`` (parsed YAML) as an :class:`ExperimentConfig`, typed by pydantic over the
    dataclasses; the first error in file order is a one-line :class:`ConfigError` naming
    ``where(key path)``. Types only: see ``check_values`` and ``resolve_defaults``."""
    try:
        return _adapter().validate_python(data)
    except ValidationError as error:
        raise schema_error(error.errors(), ExperimentConfig, data, where) from None


def resolve_defaults(config: ExperimentConfig) -> ExperimentConfig:
    """``config`` with the defaults that depend on other keys filled in, as a new config (the
    record shows the value used): ``optimizer.momentum`` null is 0.9, rmsprop's 0."""
    o = config.optimizer
    if o.momentum is not None:
        return config
    return dataclasses.replace(config, optimizer=dataclasses.replace(o, momentum=momentum_of(o)))


def momentum_of(o: OptimizerConfig) -> float:
    """``optimizer.momentum``, its null resolved: 0.9, rmsprop's 0 (MindSpore's defaults)."""
    if o.momentum is not None:
        return o.momentum
    return 0.0 if o.name == "rmsprop" else 0.9


def _merge(into: dict, update: dict) -> None:
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


# Top-level sections read by other commands, not by a run: `sweep:` (search space and
# settings of `train sweep`, trainer/sweep/) is skipped, so the same file still runs.
OTHER_COMMANDS_SECTIONS = ("sweep",)


def _switch_source(keys: tuple, section: Any, before: Any) -> None:
    """An override of ``model.class``/``dataset.class`` replaces the file's ``name`` there,
    and one of ``name`` the file's ``class`` (and its ``args``, which were the class's);
    ``class=null`` drops the file's class and its args: the section's ``name`` (the file's,
    else the default) is used. A run can move between a built-in network or dataset and the
    user's own from the command line (of two such overrides, the later wins). ``before``:
    the key's value before the override."""
    if len(keys) != 2 or keys[0] not in ("model", "dataset") or not isinstance(section, dict):
        return
    args_were_the_class = keys[0] == "model" or section.get("name") != "synthetic"
    if keys[1] == "class" and section.get("class") is not None:
        section.pop("name", None)
    elif keys[1] == "class":
        section.pop("class")
        if before is not None and args_were_the_class:
            section.pop("args", None)
    elif keys[1] == "name" and section.get("name") is not None and "class" in section:
        section.pop("class")
        if args_were_the_class:
            section.pop("args", None)


def apply_overrides(data: Any, overrides: list[str]) -> dict[tuple, str]:
    """Merge ``KEY=VALUE`` overrides into the parsed file ``data``; their key paths -> text."""
    overridden: dict[tuple, str] = {}
    for text_override in overrides:
        keys, value = parse_override(text_override)
        cursor = data
        for k in keys[:-1]:
            if not isinstance(cursor, dict) or not isinstance(cursor.get(k, {}), dict):
                raise ConfigError(f"override '{text_override}': '{k}' is not a section")
            cursor = cursor.setdefault(k, {})
        before = cursor.get(keys[-1])
        if isinstance(value, dict) and isinstance(before, dict):
            _merge(cursor[keys[-1]], value)  # a section override changes only the keys it names
        else:
            cursor[keys[-1]] = value
        _switch_source(keys, cursor, before)
        overridden[keys] = text_override
    return overridden


def _locator(path: Path, lines: dict[tuple, int], overridden: dict[tuple, str]) -> Where:
    """Key path -> where it was given: the override that set it (or its section), else
    ``file:line``, else the file."""
    def where(key_path: tuple) -> str:
        for keys, text_override in overridden.items() if key_path else ():
            if keys[:len(key_path)] == tuple(key_path) or tuple(key_path)[:len(keys)] == keys:
                return f"override '{text_override}'"
        line = lines.get(tuple(key_path))
        return f"{path}:{line}" if line else str(path)
    return where


def _other_tasks_keys(task: str) -> dict[tuple[str, ...], str]:
    """The YAML keys only other tasks take -> that task (trainer/tasks/ registers them)."""
    from .config_checks import TASK_SCHEMAS

    return {key: name for name, schema in TASK_SCHEMAS.items() if name != task for key in schema.keys}


def task_view(data: dict[str, Any], task: str) -> dict[str, Any]:
    """``data`` (a config's ``to_dict()``) without the keys of other tasks: what a resolved
    config file of this task holds (it loads again)."""
    out = copy.deepcopy(data)
    for key in _other_tasks_keys(task):
        section = out
        for part in key[:-1]:
            section = section.get(part, {}) if isinstance(section, dict) else {}
        if isinstance(section, dict):
            section.pop(key[-1], None)
    return out


def _check_task_keys(task: str, data: Any, where: Where) -> None:
    """A key another task takes (``dataset.block_size`` in a classification, ``dataset.resize``
    in a language model) is an error naming it and where it was given."""
    for key, owner in _other_tasks_keys(task).items():
        cursor = data
        for part in key:
            cursor = cursor.get(part) if isinstance(cursor, dict) else None
        if cursor is not None:
            raise ConfigError(f"{where(key)}: '{'.'.join(key)}' is a key of task: {owner}, not of "
                              f"task: {task}; remove it or set task: {owner}")


def load_config(path: str | Path, overrides: list[str] = (), *, import_code: bool = True) -> ExperimentConfig:
    """Read, merge overrides into, type and check an experiment file; ``import_code=False``
    finds the files of ``model.class``/``dataset.class`` without running them (their
    signatures are then unchecked: ``--print-config``)."""
    path = Path(path)
    data, lines = read_yaml(path)
    if isinstance(data, dict):
        for section in OTHER_COMMANDS_SECTIONS:
            data.pop(section, None)
    where = _locator(path, lines, apply_overrides(data, list(overrides)))
    config = resolve_defaults(build_config(data, where))
    _check_task_keys(config.task, data, where)
    check_values(config, where)
    from .user_code import check_targets

    check_targets(config, data, path.resolve().parent, where, import_code)  # class paths, dataset.root
    return config
