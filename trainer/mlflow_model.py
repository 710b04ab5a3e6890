"""The trained network as an MLflow 3 ``LoggedModel``: a custom ``pyfunc`` flavor.

:func:`log_pyfunc` logs it with ``mlflow.pyfunc.log_model(name=<experiment name>)`` inside
the training run (one model per run: a resumed run's replaces the one it logged before),
with a signature (outputs ``label``, ``class``, ``probabilities``, ``logits``; the input any
tensor, described in the metadata's ``input``) and an input example, so MLflow's Models tab
lists it, linked to the run (its params, and the
metrics of the run's last step: ``eval/accuracy``, ``perf/ms_per_step`` ...), tagged
like the run (``mode``, ``task``, ``model``, ``dataset``, the YAML as source);
``mlflow.register`` registers it. It holds the weights (the final checkpoint),
``config.yaml`` (the resolved experiment config), ``image.json`` (the training images'
shape, the class names when known) and, for ``model.class: mymodels.py:Net``, that file
and the sibling modules it imports (``code_paths``), so it loads without the original
files. Loading needs this package installed (``--env-manager local``).

``predict`` takes images as image files hold them, shaped ``(N, H, W)``, ``(N, H, W, C)``
or ``(N, C, H, W)`` (one image without ``N`` too; a grayscale model takes the channel
axis or not), ``uint8`` 0..255 or floats 0..255 or 0..1 (an array whose values all lie in
0..1 is taken as 0..1); with ``dataset.resize`` any height and width, else the training
one. Anything else is a one-line ``ValueError`` saying what it expects. It applies the
experiment's transforms and runs the network in graph mode in batches of at most 64, each
at its own size when the network compiles once for every batch size (symbolic: the compile
report's ``symbolic_axes``), else padded to 1, 2, 4 ... 64 (either way a new request size
compiles nothing new), and returns one row per image:
``label`` (the argmax), ``class`` (its name, when the dataset names its classes),
``probabilities`` (softmax) and ``logits``::

    model = mlflow.pyfunc.load_model(f"runs:/{run_id}/lenet-mnist")   # or models:/<model id>
    model.predict(images[:8])["label"]

``mlflow models serve -m runs:/<id>/<experiment name> --env-manager local`` answers
``POST /invocations`` with ``{"inputs": [...]}`` the same way.
"""

from __future__ import annotations

import ast
import contextlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import mlflow.pyfunc
import numpy as np
import yaml

ARTIFACT_PATH = "model"  # the name of a model logged without an experiment name


def logged_model_name(experiment: str | None) -> str:
    """A run's LoggedModel is named after its experiment (``runs:/<run id>/<name>``; ``/``,
    which a runs:/ URI would split on, as ``_``)."""
    return (experiment or ARTIFACT_PATH).replace("/", "_")


def earlier_models(client: Any, experiment_id: str, run_id: str, name: str) -> list[str]:
    """The ids of the LoggedModels called ``name`` that ``run_id`` logged (a resumed run
    logs its model again: the new one replaces them)."""
    found, token = [], None
    while True:
        page = client.search_logged_models(experiment_ids=[experiment_id], page_token=token)
        found += [m.model_id for m in page if m.source_run_id == run_id and m.name == name]
        token = page.token
        if not token:
            return found


def replace_earlier(client: Any, earlier: list[str], kept: str) -> None:
    """Delete the ``earlier`` models but ``kept``; a failure only warns (the new one stands)."""
    for model_id in earlier:
        if model_id == kept:
            continue
        try:
            client.delete_logged_model(model_id)
        except Exception as error:  # noqa: BLE001 - a duplicate in the Models tab, no more
            import warnings

            warnings.warn(f"the earlier logged model {model_id} was not deleted ({error})", stacklevel=3)
MAX_BATCH = 64  # padded batch sizes 1, 2, 4 ... MAX_BATCH: at most 7 compiled shapes
DIGITS = [str(i) for i in range(10)]
CIFAR100 = ("apple aquarium_fish baby bear beaver bed bee beetle bicycle bottle bowl boy bridge bus "
            "butterfly camel can castle caterpillar cattle chair chimpanzee clock cloud cockroach "
            "couch crab crocodile cup dinosaur dolphin elephant flatfish forest fox girl hamster "
            "house kangaroo keyboard lamp lawn_mower leopard lion lizard lobster man maple_tree "
            "motorcycle mountain mouse mushroom oak_tree orange orchid otter palm_tree pear "
            "pickup_truck pine_tree plain plate poppy porcupine possum rabbit raccoon ray road rocket "
            "rose sea seal shark shrew skunk skyscraper snail snake spider squirrel streetcar "
            "sunflower sweet_pepper table tank telephone television tiger tractor train trout tulip "
            "turtle wardrobe whale willow_tree wolf woman worm").split()
CLASS_NAMES = {
    "mnist": DIGITS, "mnist-10k": DIGITS,
    "fashion-mnist": ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
                      "Bag", "Ankle boot"],
    "cifar10": ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"],
    "cifar100": CIFAR100,
}


def class_names(config: Any, classes: int) -> list[str] | None:
    """The names of the dataset's ``classes`` labels, when it names them (built-in datasets,
    ``image_folder``'s class folders), else None."""
    d = config.dataset
    try:
        if d.class_ is None and d.name == "image_folder":
            from .image_folder import classes_of

            names = classes_of(Path(d.root))
        else:
            import datasets

            names = None if d.class_ else CLASS_NAMES.get(datasets.catalog.canonical(d.name))
    except Exception:  # noqa: BLE001 - an unnamed or unreadable dataset: no names
        return None
    return list(names) if names is not None and len(names) == classes else None


class TwinmodePyfunc(mlflow.pyfunc.PythonModel):
    """Rebuilds the network from ``config.yaml`` and the checkpoint's weights."""

    _skip_type_hint_validation = True  # the signature is given explicitly, not by type hints

    def load_context(self, context):
        import framework as ms
        from framework.serialization import read_arrays
        from framework.train.step import make_step

        from .config import build_config
        from .data import transforms_for
        from .models import network_for

        data = packaged_code(yaml.safe_load(Path(context.artifacts["config"]).read_text()),
                             Path(context.artifacts["config"]).parents[1] / "code")
        self.config = build_config(data, lambda path: "config.yaml")
        d, m = self.config.dataset, self.config.model
        side = d.resize or 28  # (a model logged before image.json: the config's shape)
        image = (json.loads(Path(context.artifacts["image"]).read_text()) if "image" in context.artifacts
                 else {"shape": [side, side] + ([m.num_channel] if m.num_channel > 1 else [])})
        self.shape, self.names = tuple(image["shape"]), image.get("class_names")
        ms.set_context(save_graphs=False)  # the mode is the Model's (below)
        self.network = network_for(self.config.model)
        arrays, _ = read_arrays(context.artifacts["weights"])
        ms.load_param_into_net(self.network, dict(arrays), strict_load=True)
        self.network.set_train(False)
        from datasets.transforms import build_transforms

        self.transforms = build_transforms(transforms_for(self.config))
        self.step = make_step(self.network, "graph")
        self.symbolic: bool | None = None  # unknown until the first request compiles

    def predict(self, context, model_input, params=None):
        import pandas as pd

        images = as_images(model_input, self.shape, self.config.dataset.resize)
        logits = np.concatenate([self._forward(images[i:i + MAX_BATCH])
                                 for i in range(0, len(images), MAX_BATCH)])
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = shifted / shifted.sum(axis=1, keepdims=True)
        label = logits.argmax(axis=1)
        out = {"label": label.astype(np.int64)}
        if self.names:
            out["class"] = [self.names[i] for i in label]
        out["probabilities"] = list(probabilities.astype(np.float32))  # one float32 row per image
        out["logits"] = list(logits.astype(np.float32))
        return pd.DataFrame(out)

    def _forward(self, images: np.ndarray) -> np.ndarray:
        """Logits of up to MAX_BATCH images: at their own size when the compiled function
        serves every batch size, else at the next power of two (zero padding). The first
        request is padded: its compile tells which (a symbolic one depends not on its size)."""
        n = len(images)
        size = n if self.symbolic else 1 << (n - 1).bit_length()
        x = self.transforms(images)
        if size > n:
            x = np.concatenate([x, np.zeros((size - n, *x.shape[1:]), x.dtype)])
        out, _ = self.step(x)
        if self.symbolic is None:
            report = self.step.report
            self.symbolic = bool(report is not None and report.symbolic_axes == [[0]]
                                 and report.symbolic_fallback is None)
        return out.asnumpy()[:n].astype(np.float32)


def packaged_code(config: dict[str, Any], code: Path) -> dict[str, Any]:
    """``config`` with ``model.class`` (``/abs/mymodels.py:Net``) pointing at the copy
    logged with the model (``code/mymodels.py``), when there is one."""
    target = (config.get("model") or {}).get("class")
    if isinstance(target, str) and target.count(":") == 1 and target.split(":")[0].endswith(".py"):
        copy = code / Path(target.split(":")[0]).name
        if copy.is_file():
            config = {**config, "model": {**config["model"], "class": f"{copy}:{target.split(':')[1]}"}}
    return config


def user_code_paths(config: dict[str, Any]) -> list[str]:
    """The ``model.class`` file and the sibling modules it imports (recursively), to log
    with the model (``code_paths``); none for a built-in model or a ``pkg.mod:Name``."""
    target = (config.get("model") or {}).get("class")
    if not (isinstance(target, str) and target.split(":")[0].endswith(".py")):
        return []
    todo, found = [Path(target.split(":")[0])], []
    while todo:
        file = todo.pop()
        if file not in found and file.is_file():
            found.append(file)
            todo += _imported_siblings(file)
    return [str(f) for f in found]


def _imported_siblings(file: Path) -> list[Path]:
    """The ``<module>.py`` files next to ``file`` that its absolute imports may name."""
    try:
        tree = ast.parse(file.read_text())
    except (OSError, SyntaxError, ValueError):
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return [file.parent / f"{n.split('.')[0]}.py" for n in names]


def expected(shape: tuple[int, ...], resize: int | None) -> str:
    """What ``predict`` takes, in words (its errors and the model's metadata)."""
    channels = shape[2] if len(shape) == 3 else 1
    size = f"any H x W (resized to {resize}x{resize})" if resize else f"{shape[0]} x {shape[1]} pixels"
    layout = ("(N, H, W) or (N, H, W, 1) or (N, 1, H, W)" if channels == 1 else
              f"(N, H, W, {channels}) or (N, {channels}, H, W)")
    return (f"images {layout} (one image without N too), {size}, uint8 0..255 or float 0..255 "
            "(or 0..1: an array whose values all lie in 0..1 is scaled by 255)")


def _as_array(model_input: Any) -> np.ndarray:
    """An array of what ``predict`` got: a named input's array, a one-column DataFrame's
    rows, nested lists (an object array when they are not numbers or ragged)."""
    if isinstance(model_input, dict):  # {"images": array} from a named input
        model_input = model_input.get("images", next(iter(model_input.values()), None))
    if hasattr(model_input, "columns") and len(model_input.columns) == 1:  # a one-column DataFrame
        model_input = model_input.iloc[:, 0].tolist()
    try:
        x = np.asarray(getattr(model_input, "values", model_input))
        return np.asarray(x.tolist(), dtype=np.float32) if x.dtype == object else x
    except (TypeError, ValueError):
        return np.asarray([], dtype=object)


def as_images(model_input: Any, shape: tuple[int, ...], resize: int | None) -> np.ndarray:
    """``model_input`` as the batch the training transforms take: ``(N, H, W)`` or ``(N,
    H, W, C)`` as ``shape`` (any H, W with ``resize``), uint8 as given or float32 on the
    0..255 scale; else a one-line ``ValueError`` saying what is expected."""
    x = _as_array(model_input)

    def bad(why: str) -> ValueError:
        return ValueError(f"predict: {why}; expected {expected(shape, resize)}")

    if x.dtype.kind not in "uif":
        raise bad(f"got {type(model_input).__name__} of {x.dtype} (not numbers, or ragged)")
    channels = shape[2] if len(shape) == 3 else 1
    x = _batch_layout(x, channels, bad)
    if not len(x):
        raise bad("got no images")
    if not resize and x.shape[1:3] != tuple(shape[:2]):
        raise bad(f"got {x.shape[1]} x {x.shape[2]} pixels (shape {x.shape})")
    if x.dtype == np.uint8:
        return x
    if x.size and not np.isfinite(x).all():
        raise bad("got NaN or infinite values")
    low, high = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
    if low < 0 or high > 255:
        raise bad(f"got values {low:g}..{high:g}")
    scale = 255.0 if x.dtype.kind == "f" and high <= 1.0 else 1.0
    return (x.astype(np.float32) * np.float32(scale)).astype(np.float32)


def _batch_layout(x: np.ndarray, channels: int, bad: Any) -> np.ndarray:
    """``x`` as ``(N, H, W)`` (one channel) or ``(N, H, W, C)``: a batch axis added to one
    image, the channel axis moved last (or dropped, for one channel)."""
    gray = channels == 1
    if x.ndim == 2 or (x.ndim == 3 and (not gray or (x.shape[-1] == 1 and x.shape[0] != 1))):
        x = x[np.newaxis]  # one image: (H, W), (H, W, C) or (C, H, W)
    if x.ndim != 4 and not (gray and x.ndim == 3):
        raise bad(f"got shape {x.shape}")
    if x.ndim == 4:
        if x.shape[-1] != channels and x.shape[1] == channels:
            x = x.transpose(0, 2, 3, 1)  # channels first -> last
        if x.shape[-1] != channels:
            raise bad(f"got shape {x.shape}: not {channels} channel{'s' if channels > 1 else ''}")
        if gray:
            x = x[..., 0]
    return np.ascontiguousarray(x)


def log_model(run: Any, config: dict[str, Any], weights: str | Path, example: np.ndarray,
              num_classes: int, register: str | None = None, names: list[str] | None = None) -> str | None:
    """Log the classifier (see the module docstring) as ``model`` of ``run``; register it
    as ``register`` when given. Returns its URI (None offline)."""
    from mlflow.models import ModelSignature
    from mlflow.types.schema import Array, ColSpec, Schema, TensorSpec

    columns = [ColSpec("long", "label"), *([ColSpec("string", "class")] if names else []),
               ColSpec(Array("float"), "probabilities"), ColSpec(Array("float"), "logits")]
    # the input: one tensor of any dtype and rank (MLflow's "any" tensor: object, (-1,)), as
    # predict takes uint8 or float images, with or without the channel axis (``expected``
    # says which, in the model's metadata); a typed tensor would refuse all but one of them
    signature = ModelSignature(inputs=Schema([TensorSpec(np.dtype(object), (-1,))]),
                               outputs=Schema(columns))
    image = {"shape": list(example.shape[1:]), "class_names": names}
    resize = (config.get("dataset") or {}).get("resize")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "image.json"
        path.write_text(json.dumps(image))
        return log_pyfunc(run, "pyfunc_entry.py", config, {"weights": str(weights), "image": str(path)},
                          signature, example, register, model_type="classifier",
                          code_paths=user_code_paths(config),
                          metadata={"input": expected(tuple(image["shape"]), resize)})


RUN_TAGS = ("mode", "task", "model", "dataset", "experiment", "device", "precision", "mlflow.source.name",
            "mlflow.source.type", "mlflow.source.git.commit", "mlflow.user")


@contextlib.contextmanager
def _in_store(uri: str) -> Any:
    """MLflow's fluent API pointed at ``uri`` for a while. Its own ``_use_tracking_uri``
    restores the global URI by setting it again, which also sets ``MLFLOW_TRACKING_URI``
    in the environment (for subprocesses): the variable is put back as it was, so a later
    run of this process does not log into this run's store."""
    from mlflow.tracking._tracking_service.utils import _use_tracking_uri

    before = os.environ.get("MLFLOW_TRACKING_URI")
    try:
        with _use_tracking_uri(uri):
            yield
    finally:
        if before is None:
            os.environ.pop("MLFLOW_TRACKING_URI", None)
        else:
            os.environ["MLFLOW_TRACKING_URI"] = before


def log_pyfunc(run: Any, entry: str, config: dict[str, Any], artifacts: dict[str, str], signature: Any,
               example: Any, register: str | None, **extra: Any) -> str | None:
    """Log a models-from-code pyfunc (``entry``: its file in trainer/) with ``config.yaml``
    and ``artifacts`` as the LoggedModel ``model`` of ``run``, linked to the metrics of the
    run's last step, tagged like the run; register it as ``register`` when given. Returns
    ``runs:/<run id>/<name>`` (None offline). The model is named after the experiment
    (:func:`logged_model_name`); one the run logged before (a resumed run's) is replaced."""
    if not run.online:
        return None
    name = logged_model_name(config.get("name"))
    earlier = earlier_models(run.client, run.experiment_id, run.run_id, name)
    run.flush()
    run.wait()  # the metrics are in the store: the model links those of the last step
    tags = {k: v for k, v in run.client.get_run(run.run_id).data.tags.items() if k in RUN_TAGS}
    quiet = logging.getLogger("mlflow")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # no INFO lines about validating the example
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    try:
        with tempfile.TemporaryDirectory() as tmp, _in_store(run.uri):
            config_file = Path(tmp) / "config.yaml"
            config_file.write_text(yaml.safe_dump(config, sort_keys=False))
            with mlflow.start_run(run_id=run.run_id, nested=mlflow.active_run() is not None):
                info = mlflow.pyfunc.log_model(
                    name=name, python_model=str(Path(__file__).with_name(entry)),
                    artifacts={**artifacts, "config": str(config_file)}, signature=signature,
                    input_example=example, pip_requirements=["twinmode", f"mlflow=={mlflow.__version__}"],
                    registered_model_name=register, await_registration_for=0, tags=tags,
                    step=run.last_step, **extra)
    finally:
        quiet.setLevel(level)
    replace_earlier(run.client, earlier, info.model_id)
    run.set_tags({"logged_model_id": info.model_id})
    if register and info.registered_model_version is not None:
        run.set_tags({"registered_model": f"{register} version {info.registered_model_version}"})
    return f"runs:/{run.run_id}/{name}"
