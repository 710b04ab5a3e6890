"""The default name of a run: what tells it apart from the other runs of its experiment file.

``<name>-<mode>[-<labels>]`` (MLflow adds ``-<first 8 characters of the run id>``):
the labels are the precision when it is not fp32, then, in the config's key order, each
setting that differs from the experiment file (the command line's ``KEY=VALUE``
overrides, ``--device``), shortened: ``lr0.05``, ``bs64``, ``ep1``, ``steps200``,
``seed3``, ``wd0.1``, a name as itself (``adamw``, ``cuda``, ``resnet8``), any other key as
its last part and value (``dropout0.1``, ``limit2000``). Settings that do not change what
is trained (the mode, already in the name; ``mlflow.*``, ``checkpoint.*``, ``ir.*``,
``graph.*``, ``dist.*``, logging and evaluation cadence) are left out. At most
:data:`MAX_LABELS` labels, then ``+N`` for the rest (the run's params hold them all).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_LABELS = 5
LEFT_OUT = ("name", "mode", "mlflow.", "checkpoint.", "ir.", "graph.", "dist.", "train.log_every",
            "train.eval_every", "train.eval_batches", "dataset.num_workers")
SHORT = {"optimizer.learning_rate": "lr", "dataset.batch_size": "bs", "train.epochs": "ep",
         "train.max_steps": "steps", "seed": "seed", "optimizer.weight_decay": "wd",
         "optimizer.momentum": "mom", "train.accumulate_grad_batches": "accum"}
AS_NAME = ("precision", "device", "model.name", "dataset.name", "optimizer.name", "loss.name",
           "optimizer.schedule.name", "task")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def label(key: str, value: Any) -> str:
    """One setting, short: ``lr0.05``, ``adamw``, ``dropout0.1`` (module docstring)."""
    if key in AS_NAME or key.endswith(".class"):
        return _value(value).rsplit(":", 1)[-1]  # a class path: its class name
    prefix = SHORT.get(key, key.rsplit(".", 1)[-1])
    return f"{prefix}{_value(value)}"


def differences(config: Any, base: Any) -> list[tuple[str, Any]]:
    """``(dotted key, value)`` of ``config`` where it differs from ``base`` (None: no base),
    the precision first when not fp32, the keys that do not name a run left out."""
    ours = config.flat()
    out = [("precision", ours["precision"])] if ours.get("precision", "fp32") != "fp32" else []
    if base is None:
        return out
    theirs = base.flat()
    for key, value in ours.items():
        if key == "precision" or key.startswith(LEFT_OUT) or key in ("name",):
            continue
        if key not in theirs or theirs[key] != value:
            out.append((key, value))
    return out


def file_config(source: str | None) -> Any:
    """The experiment file ``source`` as written (no overrides), or None when it is not one
    that loads (a script, a file changed since)."""
    if not source or Path(source).suffix.lower() not in (".yaml", ".yml") or not Path(source).is_file():
        return None
    from .config import load_config

    try:
        return load_config(source, import_code=False)
    except Exception:  # noqa: BLE001 - a name is a convenience: no labels then
        return None


def default_run_name(config: Any, source: str | None) -> str:
    """``<name>-<mode>[-<labels>]`` of ``config`` run from the file ``source`` (module docstring)."""
    labels = [label(k, v) for k, v in differences(config, file_config(source))]
    labels = [text.replace("/", "_").replace(" ", "")[:24] for text in labels]
    if len(labels) > MAX_LABELS:
        labels = labels[:MAX_LABELS] + [f"+{len(labels) - MAX_LABELS}"]
    return "-".join([config.name, config.mode, *labels])
