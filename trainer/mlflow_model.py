"""The trained network as an MLflow model: a custom ``pyfunc`` flavor.

The logged folder (``runs:/<run id>/model``) holds the weights (the run's final
checkpoint), ``config.yaml`` (the resolved experiment config: which model class, its
arguments, the data transforms), an input signature and an input example. Loading it
needs this package installed (``--env-manager local``), nothing of the training run.

``predict`` takes raw images as the dataset files hold them, ``uint8`` (or numbers
0..255) shaped ``(N, H, W)`` or ``(N, H, W, C)``, applies the experiment's transforms
(resize, rescale, normalize, HWC -> CHW) and runs the network in graph mode (compiled
once per batch shape); it returns the logits, ``float32 (N, num_classes)``::

    model = mlflow.pyfunc.load_model(f"runs:/{run_id}/model")
    logits = model.predict(images[:8])

``mlflow models serve -m runs:/<id>/model --env-manager local`` answers
``POST /invocations`` with ``{"inputs": [...]}`` the same way.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import mlflow.pyfunc
import numpy as np
import yaml

ARTIFACT_PATH = "model"


class TwinmodePyfunc(mlflow.pyfunc.PythonModel):
    """Rebuilds the network from ``config.yaml`` and the checkpoint's weights."""

    _skip_type_hint_validation = True  # the signature is given explicitly, not by type hints

    def load_context(self, context):
        import framework as ms
        from framework.serialization import read_arrays

        from .config import build_config
        from .data import transforms_for
        from .models import network_for

        data = yaml.safe_load(Path(context.artifacts["config"]).read_text())
        self.config = build_config(data, lambda path: "config.yaml")
        m = self.config.model
        ms.set_context(save_graphs=False)  # the mode is the Model's (below)
        self.network = network_for(m)
        arrays, _ = read_arrays(context.artifacts["weights"])
        ms.load_param_into_net(self.network, dict(arrays), strict_load=True)
        self.network.set_train(False)
        self.transforms = transforms_for(self.config)
        from framework.train.model import Model

        self.model = Model(self.network, mode="graph")

    def predict(self, context, model_input, params=None):
        import datasets

        if isinstance(model_input, dict):  # {"images": array} from a named input
            model_input = model_input.get("images", next(iter(model_input.values()), None))
        images = np.asarray(getattr(model_input, "values", model_input))
        if images.ndim not in (3, 4):
            raise ValueError(f"predict: expected images shaped (N, H, W) or (N, H, W, C), got "
                             f"shape {images.shape}")
        images = np.clip(images, 0, 255).astype(np.uint8)
        labels = np.zeros(len(images), np.int32)
        loader = datasets.make_loader((images, labels), batch_size=max(len(images), 1), shuffle=False,
                                      drop_remainder=False, transforms=self.transforms)
        outs = [self.model.predict(x).asnumpy() for x, _ in loader]
        return np.concatenate(outs).astype(np.float32)


def log_model(run: Any, config: dict[str, Any], weights: str | Path, example: np.ndarray,
              num_classes: int, register: str | None = None) -> str | None:
    """Save the pyfunc model and log it under ``model/`` of ``run``; register it as
    ``register`` when given. Returns the model URI (None offline)."""
    from mlflow.models import ModelSignature
    from mlflow.types.schema import Schema, TensorSpec

    signature = ModelSignature(
        inputs=Schema([TensorSpec(np.dtype(np.uint8), (-1, *example.shape[1:]))]),
        outputs=Schema([TensorSpec(np.dtype(np.float32), (-1, num_classes))]))
    return save_pyfunc(run, "pyfunc_entry.py", config, {"weights": str(weights)}, signature, example,
                       register)


def save_pyfunc(run: Any, entry: str, config: dict[str, Any], artifacts: dict[str, str],
                signature: Any, example: Any, register: str | None) -> str | None:
    """Save a models-from-code pyfunc (``entry``: its file in trainer/) with ``config.yaml``
    and ``artifacts``, log it under ``model/`` of ``run`` and register it as ``register``
    when given. Returns the model URI (None offline)."""
    if not run.online:
        return None
    quiet = logging.getLogger("mlflow")
    level = quiet.level
    quiet.setLevel(logging.WARNING)  # no INFO lines about validating the example
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config_file = Path(tmp) / "config.yaml"
            config_file.write_text(yaml.safe_dump(config, sort_keys=False))
            folder = Path(tmp) / ARTIFACT_PATH
            mlflow.pyfunc.save_model(
                str(folder), python_model=str(Path(__file__).with_name(entry)),
                artifacts={**artifacts, "config": str(config_file)},
                signature=signature, input_example=example,
                pip_requirements=["twinmode", f"mlflow=={mlflow.__version__}"])
            run.log_artifact(folder, ARTIFACT_PATH)
    finally:
        quiet.setLevel(level)
    uri = f"runs:/{run.run_id}/{ARTIFACT_PATH}"
    if register:
        _register(run, register)
    return uri


def _register(run: Any, name: str) -> None:
    client = run.client
    try:
        client.get_registered_model(name)
    except Exception:  # noqa: BLE001 - not registered yet
        client.create_registered_model(name)
    source = f"{client.get_run(run.run_id).info.artifact_uri}/{ARTIFACT_PATH}"
    version = client.create_model_version(name, source, run_id=run.run_id)
    run.set_tags({"registered_model": f"{name} version {version.version}"})
