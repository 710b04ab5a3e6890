"""A trained network out of the trainer: to ONNX (``train export``), and its weights in
MindSpore's or the safetensors format at the end of a run (``checkpoint.format``).

``export_checkpoint(config, checkpoint, out)`` is what ``train export FILE --checkpoint PATH
--format onnx`` runs. The network is built as ``train eval`` builds it (the task's data
first: a language model's vocabulary sizes its network), and the sample input is the first
validation batch, so the file takes what the data loaders give (resized, normalized
images; token ids). The file's input is named ``image`` (a classifier) or ``tokens`` (a
language model), its output ``logits``, and its ``metadata_props`` carry the preprocessing
and class names, or the tokenizer (trainer/onnx_metadata.py): it is usable without the
YAML. When the checkpoint is a training checkpoint of a run logged to this
config's MLflow store (``mlflow.tracking_uri``) and ``mlflow.log_model`` is on, the ONNX file
is also logged to that run as the LoggedModel ``<experiment name>-onnx`` (with a signature:
``image``/``tokens`` in, ``logits`` out, and an input example; an export of the same run
again replaces it), next to the run's pyfunc model:
``mlflow.pyfunc.load_model("runs:/<run id>/lenet-mnist-onnx")`` runs it in ONNX Runtime
(MLflow's ``onnx`` flavor, CPU provider). The run itself is left as it was (status, end time).

``export_weights`` writes, for ``checkpoint.format: mindspore`` or ``safetensors``, the trained
network's parameters (no optimizer state) as ``<prefix>-weights.ckpt`` (MindSpore's protobuf
``.ckpt``: ``mindspore.load_checkpoint`` reads it, MindSpore's parameter names) or
``<prefix>-weights.safetensors`` (our parameter names) in the run's checkpoint folder, once
the run has finished; the executor logs it under ``checkpoints/``. Training checkpoints
(resume, ``train eval``) stay in our checksummed format whatever ``checkpoint.format``.
"""

from __future__ import annotations

import os
import warnings
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
WEIGHTS_SUFFIX = {"mindspore": ".ckpt", "safetensors": ".safetensors"}
ONNX_SUFFIX = "-onnx"  # the LoggedModel's name: runs:/<run id>/<experiment name>-onnx


def sample_input(config: ExperimentConfig, data: TaskData | None = None) -> np.ndarray:
    """Two inputs of the experiment's network from its first validation batch (only their
    shape and dtype matter to the export)."""
    if data is None:
        data = task_of(config).data(config, Rank())
    x: Any = first_batch(data.valid)[0] if is_pipeline(data.valid) else next(iter(data.valid))[0]
    x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
    return np.ascontiguousarray(x[:2])


def export_checkpoint(config: ExperimentConfig | str | Path, checkpoint_path: str | Path,
                      out_path: str | Path, fmt: str = "onnx", log: bool = True) -> Path:
    """Rebuild the network of ``config`` (an experiment or its YAML file), load
    ``checkpoint_path`` into it (strictly: every parameter must be there) and export it to
    ``out_path`` (``.onnx`` appended when missing); returns the written file. With ``log``,
    also logs it to the checkpoint's MLflow run (module docstring) and prints one line
    saying where, or why not."""
    from framework.exporter import ExportError

    if fmt.upper() == "MINDIR":  # framework.export writes MindIR, but this command logs ONNX
        raise ExportError("export: the trainer writes ONNX only (format 'mindir' asked); for "
                          "MindIR call framework.export(net, x, file_name=..., file_format='MINDIR')")
    if fmt.lower() not in FORMATS and fmt.upper() != "AIR":
        # (AIR: ms.export words its refusal)
        raise ExportError(f"export: unknown format {fmt!r}; supported: {', '.join(FORMATS)}")
    if not isinstance(config, ExperimentConfig):
        config = load_config(config)
    values = ms.load_checkpoint(str(checkpoint_path))  # a bad file fails before the data is read
    data = task_of(config).data(config, Rank())
    _, net = build_model_for(config, data)
    ms.load_param_into_net(net, values, strict_load=True)
    example = sample_input(config, data)
    try:
        written = _write_onnx(net, example, out_path, config, data) if fmt.lower() == "onnx" else \
            Path(ms.export(net, ms.Tensor(example), file_name=str(out_path), file_format=fmt.upper()))
    except OSError as error:  # a read-only or full disk, a file where a folder should be
        blocker = next((p for p in Path(out_path).parents if p.exists() and not p.is_dir()), None)
        why = f"{blocker} is a file, not a folder" if blocker else (error.strerror or str(error))
        raise ExportError(f"export: {out_path} cannot be written ({why}); choose another --out") from None
    if log:
        where, why = log_onnx(config, checkpoint_path, written, example)
        print(f"MLflow: logged as {where}" if where else f"MLflow: not logged ({why})", flush=True)
    return written


def _write_onnx(net: Any, example: np.ndarray, out_path: str | Path, config: ExperimentConfig,
                data: TaskData) -> Path:
    """``framework.export``'s ONNX model with its input and output named and the metadata
    that makes it usable without the YAML (trainer/onnx_metadata.py), written atomically."""
    from framework._io import atomic_write
    from framework.exporter import model_proto

    from .onnx_metadata import describe

    model = describe(model_proto(net, ms.Tensor(example)), config, data.info)
    path = Path(out_path) if str(out_path).lower().endswith(".onnx") else Path(f"{out_path}.onnx")
    atomic_write(os.path.abspath(path), model.SerializeToString())
    return path


def checkpoint_run(config: ExperimentConfig, checkpoint_path: str | Path) -> tuple[str | None, str]:
    """``(the MLflow run id a training checkpoint was logged to, the store's URI)``; the id is
    None for a weights-only file or a run of another store."""
    from framework.serialization import CheckpointError
    from framework.train.checkpoint import read_checkpoint

    from .mlflow_logger import tracking_uri
    from .tracking import previous_run_id

    uri = tracking_uri(config.mlflow.tracking_uri)
    try:
        read = read_checkpoint(checkpoint_path)
    except CheckpointError:  # weights only (ms.save_checkpoint), or another format
        return None, uri
    return previous_run_id(read, uri), uri


def log_onnx(config: ExperimentConfig, checkpoint_path: str | Path, onnx_file: Path,
             example: np.ndarray) -> tuple[str | None, str]:
    """Log ``onnx_file`` as the LoggedModel ``<experiment>-onnx`` of the checkpoint's run:
    ``("runs:/<id>/<name> (model <model id>)", "")``, or ``(None, why not)``. A store that
    fails only warns."""
    if not config.mlflow.log_model:
        return None, "mlflow.log_model is off"
    run_id, uri = checkpoint_run(config, checkpoint_path)
    if run_id is None:
        return None, (f"{checkpoint_path} names no MLflow run of {uri} (not a training checkpoint "
                      "of a run logged there)")
    try:
        name, model_id = _log_onnx_model(config, uri, run_id, onnx_file, example, checkpoint_path)
    except Exception as error:  # noqa: BLE001 - the file is written; the store is a convenience
        why = f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
        warnings.warn(f"the ONNX model was not logged to MLflow run {run_id} ({why})", stacklevel=2)
        return None, why
    return f"runs:/{run_id}/{name} (model {model_id})", ""


def onnx_signature(model: Any) -> Any:
    """The MLflow signature of an exported ``model``: its named input and output tensors
    (the batch axis, and a language model's sequence axis, as -1)."""
    from mlflow.models import ModelSignature
    from mlflow.types.schema import Schema, TensorSpec
    from onnx import helper

    def spec(value: Any) -> Any:
        t = value.type.tensor_type
        shape = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim)
        return TensorSpec(np.dtype(helper.tensor_dtype_to_np_dtype(t.elem_type)), shape, name=value.name)

    return ModelSignature(inputs=Schema([spec(v) for v in model.graph.input]),
                          outputs=Schema([spec(v) for v in model.graph.output]))


def _log_onnx_model(config: ExperimentConfig, uri: str, run_id: str, onnx_file: Path, example: np.ndarray,
                    checkpoint_path: str | Path) -> tuple[str, str]:
    import logging

    import mlflow
    import mlflow.onnx
    import onnx

    from framework.exporter.onnx_model import OPSET

    from .mlflow_model import RUN_TAGS, _in_store, earlier_models, logged_model_name, replace_earlier

    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "1")  # as training: fail fast
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
    client = mlflow.MlflowClient(uri)
    run = client.get_run(run_id)
    tags = {k: v for k, v in run.data.tags.items() if k in RUN_TAGS}
    tags.update({"format": f"onnx (opset {OPSET})", "checkpoint": str(Path(checkpoint_path).resolve())})
    quiet = logging.getLogger("mlflow")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # no INFO/WARNING lines about providers and the example
    name = logged_model_name(config.name) + ONNX_SUFFIX
    earlier = earlier_models(client, run.info.experiment_id, run_id, name)
    proto = onnx.load(str(onnx_file))
    try:
        with _in_store(uri):
            model = mlflow.initialize_logged_model(name=name, source_run_id=run_id,
                                                   experiment_id=run.info.experiment_id, tags=tags)
            inputs = [i.name for i in proto.graph.input]
            mlflow.onnx.log_model(proto, name=name, model_id=model.model_id,
                                  signature=onnx_signature(proto),
                                  input_example={inputs[0]: example} if len(inputs) == 1 else example,
                                  pip_requirements=["onnxruntime"],
                                  onnx_execution_providers=["CPUExecutionProvider"])
    finally:
        quiet.setLevel(level)
    replace_earlier(client, earlier, model.model_id)
    client.set_tag(run_id, "onnx_model_id", model.model_id)
    return name, model.model_id


def weights_file(final_checkpoint: str | Path, fmt: str) -> Path:
    """``<prefix>-weights.ckpt`` / ``.safetensors`` next to ``<prefix>-<epoch>_<step>.ckpt``."""
    final = Path(final_checkpoint)
    return final.with_name(f"{final.name.rsplit('-', 1)[0]}-weights{WEIGHTS_SUFFIX[fmt]}")


def export_weights(config: ExperimentConfig, network: Any,
                   final_checkpoint: str | Path | None) -> Path | None:
    """For ``checkpoint.format`` mindspore or safetensors, ``network``'s parameters next to
    the run's final checkpoint (module docstring); None for ``twinmode``, without a final
    checkpoint (ranks other than 0), or when the write fails (a warning: the run stands)."""
    fmt = config.checkpoint.format
    if fmt not in WEIGHTS_SUFFIX or not final_checkpoint:
        return None
    path = weights_file(final_checkpoint, fmt)
    try:
        ms.save_checkpoint(network, str(path), format=fmt)
    except (ImportError, OSError, TypeError, ValueError) as error:
        warnings.warn(f"checkpoint.format {fmt}: the weights were not written to {path} "
                      f"({type(error).__name__}: {error})", stacklevel=2)
        return None
    return path
