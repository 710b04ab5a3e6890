"""Experiment configuration: a strict, typed YAML schema with defaults.

Unknown keys and wrong types are errors naming the file, the line, the key and, for a
misspelt key or a common alias (``lr``), the valid one. Duplicate keys, empty and non-text
files are errors too. Numbers follow YAML 1.2 (``1e-3`` is a float). ``KEY=VALUE``
overrides (``train.epochs=1``) are validated exactly like the file; a section override
(``dataset={name: fashion-mnist}``) merges into the section.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from .config_checks import check_values
from .config_errors import ConfigError
from .config_errors import type_name as _type_name
from .dotted import flatten


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 floats: ``1e-3`` and ``5E+2`` need no dot."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)$"),
    list("-+.0123456789"))

# Names users reach for, by section-independent key: the schema's name for them.
_ALIASES = {"lr": "learning_rate", "learningrate": "learning_rate", "wd": "weight_decay",
            "decay": "weight_decay", "bs": "batch_size", "batch": "batch_size",
            "batchsize": "batch_size", "epoch": "epochs", "num_epochs": "epochs",
            "n_epochs": "epochs", "classes": "num_classes", "n_classes": "num_classes",
            "nclasses": "num_classes", "channels": "num_channel", "num_channels": "num_channel",
            "in_channels": "num_channel", "path": "root", "data_dir": "root", "dataset_dir": "root",
            "keep": "keep_max", "max_keep": "keep_max", "keep_checkpoint_max": "keep_max",
            "save_checkpoint_steps": "save_steps", "every": "save_steps", "uri": "tracking_uri",
            "beta": "momentum", "optimizer": "name", "type": "name", "random_seed": "seed"}


@dataclass
class ModelConfig:
    """A built-in model (``name``, see trainer/models) or the user's own class
    (``class: FILE.py:Class`` or ``pkg.mod:Class`` with ``args``, trainer/user_code.py).
    The YAML key ``class`` is the field ``class_``. With ``class``, ``num_classes`` is
    ``args.num_classes`` when given (for the record; labels are checked against the
    network's outputs, trainer/data.py)."""

    name: str = "lenet5"
    num_classes: int = 10
    num_channel: int = 1
    class_: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class DatasetConfig:
    """A named dataset (``name``, datasets/; ``npz``: ``root`` is the ``.npz`` file) or the
    user's own function (``class: FILE.py:make_dataset`` with ``args``; the return contract
    is in trainer/data.py). The YAML key ``class`` is the field ``class_``."""

    name: str = "mnist"
    root: str | None = None
    class_: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    batch_size: int = 32
    resize: int | None = 32
    # [mean, std] of all channels, or per channel: [[0.49, 0.48, 0.45], [0.25, 0.24, 0.26]]
    normalize: list[float | list[float]] | None = field(default_factory=lambda: [0.1307, 0.3081])
    shuffle: bool = True
    limit: int | None = None
    test_limit: int | None = None


@dataclass
class ScheduleConfig:
    """Per-step learning rates with ``optimizer.learning_rate`` as the peak (trainer/schedule.py)."""

    name: Literal["constant", "cosine", "exponential", "piecewise"] = "constant"
    warmup_epochs: int = 0
    min_lr: float = 0.0  # cosine
    decay_rate: float = 0.1  # exponential
    decay_epochs: int = 1  # exponential
    is_stair: bool = False  # exponential
    milestones: list[int] | None = None  # piecewise: epochs where the LR changes
    values: list[float] | None = None  # piecewise: one more than milestones


@dataclass
class OptimizerConfig:
    # adamw: nn.AdamWeightDecay; rmsprop: nn.RMSProp (momentum, decay, centered); lamb: nn.Lamb
    name: Literal["momentum", "sgd", "adam", "adamw", "rmsprop", "lamb"] = "momentum"
    learning_rate: float = 0.01
    momentum: float | None = None  # momentum, sgd, rmsprop; null: 0.9 (rmsprop: 0, MindSpore's)
    weight_decay: float = 0.0
    decay: float = 0.9  # rmsprop: moving-average factor of the squared gradients
    centered: bool = False  # rmsprop: divide by the gradients' variance, not their mean square
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    clip_grad_norm: float | None = None  # scale gradients to this global L2 norm at most
    exclude_bias_and_norm: bool = False  # weight_decay not on biases nor BatchNorm gamma/beta


@dataclass
class LossConfig:
    name: Literal["softmax_cross_entropy", "cross_entropy"] = "softmax_cross_entropy"
    reduction: Literal["mean", "sum"] = "mean"
    label_smoothing: float = 0.0  # in [0, 1): targets (1 - e) * one_hot + e / classes




@dataclass
class EarlyStoppingConfig:
    """``trainer.callbacks.EarlyStopping`` from YAML; off while ``monitor`` is null.
    ``loss`` is the epoch's mean training loss; ``eval_*`` need an evaluated epoch."""

    monitor: str | None = None
    patience: int = 3
    min_delta: float = 0.0
    mode: Literal["auto", "min", "max"] = "auto"
    restore_best_weights: bool = False


@dataclass
class TrainConfig:
    epochs: int = 3
    eval_every: int = 1
    log_every: int = 50
    early_stopping: EarlyStoppingConfig = field(default_factory=EarlyStoppingConfig)
    accumulate_grad_batches: int = 1  # apply the mean gradient of N batches every N steps


@dataclass
class CheckpointSection:
    dir: str | None = None  # default: checkpoints/<name>
    save_steps: int | None = 500
    save_seconds: float | None = None
    keep_max: int = 5
    keep_best: str | None = None  # also keep <prefix>-best.ckpt: the best epoch by this metric


@dataclass
class MlflowConfig:
    tracking_uri: str | None = None  # default: $MLFLOW_TRACKING_URI, else sqlite:///mlflow.db
    experiment: str = "twinmode"
    run_name: str | None = None
    system_metrics: bool = True  # MLflow's system/* metrics (CPU, memory, disk) while training
    log_model: bool = True  # the trained network as an MLflow pyfunc model (runs:/<id>/model)
    register: str | None = None  # also register that model under this name in the model registry


@dataclass
class IrConfig:
    save: bool = False
    dir: str | None = None  # default: ir/<name>


@dataclass
class GraphConfig:
    tuning: str | int = "off"  # graph-mode kernel tuning: off, trials per task, or "60s"


@dataclass
class DistConfig:
    """Data parallelism on MPI: ``nproc`` ranks (``train run`` starts them with the dist
    extra's ``mpiexec``), on the machines of ``hosts`` (passed to MPICH's ``-hosts``).
    ``timeout``: seconds a rank waits in a collective for the others before the job ends
    naming the rank that did not arrive (null: ``TWINMODE_COLLECTIVE_TIMEOUT``, else 300)."""

    nproc: int = 1
    hosts: list[str] | None = None
    timeout: float | None = None


@dataclass
class ExperimentConfig:
    name: str = "experiment"
    seed: int = 0
    mode: Literal["graph", "pynative"] = "graph"
    device: Literal["cpu", "cuda"] = "cpu"
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
        """Digest of what the training computes; not ``dist`` (how it is launched: a resume
        under another world size is caught by the data loader's ``num_shards``)."""
        data = self.to_dict()
        data.pop("dist")
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def checkpoint_dir(self) -> str:
        return self.checkpoint.dir or str(Path("checkpoints") / self.name)

    @property
    def ir_dir(self) -> str:
        return self.ir.dir or str(Path("ir") / self.name)


# -- YAML with line numbers ------------------------------------------------------------------
def _lines(node: yaml.Node, source: Path, path: tuple = (), out: dict | None = None
           ) -> dict[tuple, int]:
    """Line of every dotted key; a key given twice in one mapping is an error."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = path + (key.value,)
            line = key.start_mark.line + 1
            if sub in out:
                raise ConfigError(f"{source}:{line}: key '{'.'.join(map(str, sub))}' is given twice "
                                  f"(lines {out[sub]} and {line}); keep one")
            out[sub] = line
            _lines(value, source, sub, out)
    return out


def _coerce(value: Any, tp: Any) -> tuple[bool, Any]:
    """(ok, value) for ``value`` against the annotation ``tp``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            ok, out = _coerce(value, arg)
            if ok:
                return True, out
        return False, value
    if origin is Literal:
        return value in typing.get_args(tp), value
    if tp is Any:
        return True, value
    if origin is dict:
        return isinstance(value, dict) and all(isinstance(k, str) for k in value), value
    if origin is list:
        if not isinstance(value, list):
            return False, value
        items = [_coerce(v, typing.get_args(tp)[0]) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    if tp is type(None):
        return value is None, value
    if tp is bool:
        return isinstance(value, bool), value
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return ok, float(value) if ok else value
    if tp is str:
        return isinstance(value, str), value
    return False, value


def _build(cls: type, data: Any, path: tuple, where: Any) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where(path)}: {'.'.join(path) or 'the file'} must be a mapping of keys, "
                          f"got {data!r}")
    hints = typing.get_type_hints(cls)
    known = [f.name.rstrip("_") for f in dataclasses.fields(cls)]  # class_ is the key `class`
    kwargs = {}
    for key, value in data.items():
        dotted = ".".join(path + (str(key),))
        if key not in known:
            alias = _ALIASES.get(str(key).lower().replace("-", "_"))
            close = [alias] if alias in known else difflib.get_close_matches(str(key), known, n=1)
            hint = f" (did you mean '{'.'.join(path + (close[0],))}'?)" if close else (
                f"; valid keys: {', '.join(known)}")
            raise ConfigError(f"{where(path + (key,))}: unknown key '{dotted}'{hint}")
        attr = key if key in hints else f"{key}_"
        tp = hints[attr]
        if dataclasses.is_dataclass(tp):
            kwargs[key] = _build(tp, value, path + (key,), where)
            continue
        ok, coerced = _coerce(value, tp)
        if not ok:
            sweep = isinstance(value, str) and re.match(r"\s*(choice|uniform|loguniform|int)\(", value)
            raise ConfigError(f"{where(path + (key,))}: '{dotted}' must be {_type_name(tp)}, "
                              f"got {value!r}" + ("; a search space is for `train sweep`, or give "
                                                  f"one value: {dotted}=VALUE" if sweep else ""))
        kwargs[attr] = coerced
    return cls(**kwargs)


MAX_FILE_BYTES = 1 << 20  # an experiment file is a few KiB


def parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    if "=" not in text or text.startswith("="):
        raise ConfigError(f"override '{text}': expected KEY=VALUE, e.g. train.epochs=1")
    key, raw = text.split("=", 1)
    try:
        value = yaml.load(raw, Loader=_Loader) if raw.strip() else None
    except yaml.YAMLError:
        value = raw
    except RecursionError:
        raise ConfigError(f"override '{key}=...': its value is nested too deeply") from None
    return tuple(key.strip().split(".")), value


def _merge(into: dict, update: dict) -> None:
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def read_yaml(path: str | Path) -> tuple[Any, dict[tuple, int]]:
    """The parsed YAML of an experiment file and the line of every dotted key (errors with
    ``file:line`` for unreadable, non-text, invalid or empty files)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: experiment file not found")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ConfigError(f"{path}: {path.stat().st_size:,} bytes is not an experiment file (those "
                              f"are a few KiB; at most {MAX_FILE_BYTES:,} bytes are read)")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not a text file (byte {error.start} is not UTF-8); an experiment "
                          "is a YAML text file such as experiments/smoke.yaml") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from None
    try:
        node = yaml.compose(text, Loader=_Loader)
        data = yaml.load(text, Loader=_Loader)
    except RecursionError:
        raise ConfigError(f"{path}: invalid YAML: nested too deeply (an experiment file has a "
                          "few levels of sections)") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{path}{line}: invalid YAML: {problem}") from None
    if data is None:
        raise ConfigError(f"{path}: the file is empty (no keys); write at least `name: <run name>` "
                          "(every other key has a default), or start from experiments/smoke.yaml")
    return data, (_lines(node, path) if node is not None else {})


# Top-level sections read by other commands, not by a run: `sweep:` (search space and
# settings of `train sweep`, trainer/sweep/) is skipped, so the same file still runs.
OTHER_COMMANDS_SECTIONS = ("sweep",)


def _switch_source(keys: tuple, section: Any) -> None:
    """An override of ``model.class``/``dataset.class`` replaces the file's ``name`` there,
    and one of ``name`` the file's ``class`` (and its ``args``, which were the class's): a
    run can move between a built-in network or dataset and the user's own from the command
    line (of two such overrides, the later wins)."""
    if len(keys) != 2 or keys[0] not in ("model", "dataset") or not isinstance(section, dict):
        return
    if keys[1] == "class" and section.get("class") is not None:
        section.pop("name", None)
    elif keys[1] == "name" and section.get("name") is not None and "class" in section:
        section.pop("class")
        if keys[0] == "model" or section.get("name") != "synthetic":
            section.pop("args", None)


def load_config(path: str | Path, overrides: list[str] = ()) -> ExperimentConfig:
    """Read, merge overrides into, and validate an experiment file."""
    path = Path(path)
    data, lines = read_yaml(path)
    if isinstance(data, dict):
        for section in OTHER_COMMANDS_SECTIONS:
            data.pop(section, None)
    overridden: dict[tuple, str] = {}
    for text_override in overrides:
        keys, value = parse_override(text_override)
        cursor = data
        for k in keys[:-1]:
            if not isinstance(cursor, dict) or not isinstance(cursor.get(k, {}), dict):
                raise ConfigError(f"override '{text_override}': '{k}' is not a section")
            cursor = cursor.setdefault(k, {})
        if isinstance(value, dict) and isinstance(cursor.get(keys[-1]), dict):
            _merge(cursor[keys[-1]], value)  # a section override changes only the keys it names
        else:
            cursor[keys[-1]] = value
        _switch_source(keys, cursor)
        overridden[keys] = text_override

    def where(key_path: tuple) -> str:
        for keys, text_override in overridden.items() if key_path else ():
            if keys[:len(key_path)] == tuple(key_path) or tuple(key_path)[:len(keys)] == keys:
                return f"override '{text_override}'"
        line = lines.get(tuple(key_path))
        return f"{path}:{line}" if line else str(path)

    config = _build(ExperimentConfig, data, (), where)
    check_values(config, where, ConfigError)
    from .user_code import check_targets

    check_targets(config, data, path.resolve().parent, where)
    return config
