"""A trained checkpoint out to a deployment format: the network the experiment describes,
its weights from the checkpoint, written by ``ms.export`` (ONNX, batch axis symbolic).

``export_checkpoint(config, checkpoint, out)`` is what ``train export FILE --checkpoint PATH
--format onnx`` runs. The network is built as ``train eval`` builds it (the task's data
first: a language model's vocabulary sizes its network), and the sample input is the first
validation batch, so the file takes what the data loaders give (resized, normalized
images; token ids).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import framework as ms

from .build import build_model_for
from .config import ExperimentConfig, load_config
from .data import first_batch, is_pipeline
from .distributed import Rank
from .tasks import TaskData, task_of

FORMATS = ("onnx",)


def sample_input(config: ExperimentConfig, data: TaskData | None = None) -> np.ndarray:
    """Two inputs of the experiment's network from its first validation batch (only their
    shape and dtype matter to the export)."""
    if data is None:
        data = task_of(config).data(config, Rank())
    x: Any = first_batch(data.valid)[0] if is_pipeline(data.valid) else next(iter(data.valid))[0]
    x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
    return np.ascontiguousarray(x[:2])


def export_checkpoint(config: ExperimentConfig | str | Path, checkpoint_path: str | Path,
                      out_path: str | Path, fmt: str = "onnx") -> Path:
    """Rebuild the network of ``config`` (an experiment or its YAML file), load
    ``checkpoint_path`` into it (strictly: every parameter must be there) and export it to
    ``out_path`` (``.onnx`` appended when missing); returns the written file."""
    if fmt.lower() not in FORMATS and fmt.upper() not in ("MINDIR", "AIR"):
        # (MINDIR/AIR: ms.export words their refusal)
        raise ValueError(f"export: unknown format {fmt!r}; supported: {', '.join(FORMATS)}")
    if not isinstance(config, ExperimentConfig):
        config = load_config(config)
    values = ms.load_checkpoint(str(checkpoint_path))  # a bad file fails before the data is read
    data = task_of(config).data(config, Rank())
    _, net = build_model_for(config, data)
    ms.load_param_into_net(net, values, strict_load=True)
    written = ms.export(net, ms.Tensor(sample_input(config, data)), file_name=str(out_path),
                        file_format=fmt.upper())
    return Path(written)
