"""A run's data: a named dataset (datasets/), a ``.npz`` file, or the user's own function;
and the check, before the first step, that the model takes the data.

The user's function (``dataset.class: mydata.py:make_dataset``, ``dataset.args``) is called
once per split, ``make_dataset(split="train", **args)`` then ``split="test"``, and returns
either:

- ``(images, labels)``: ``images`` a NumPy array ``N x H x W`` (one channel) or
  ``N x H x W x C`` (channels last), with pixel values as image files hold them (0..255);
  ``labels`` ``N`` integers in ``0 .. classes-1``. They get the experiment's preprocessing,
  like the built-in datasets: ``dataset.resize``, rescale by 1/255, ``dataset.normalize``,
  channels first, and are batched by ``dataset.batch_size``/``shuffle``/``limit``
  (``test_limit``), resumable mid-epoch;
- a ``framework.dataset`` pipeline (MindSpore style) giving two columns ``(data, label)``
  already preprocessed and batched: it is used as it is (``dataset.batch_size``,
  ``resize``, ``normalize``, ``limit`` do not apply).

``dataset.name: npz`` reads ``dataset.root``, a ``.npz`` file with ``x_train``,
``y_train``, ``x_test``, ``y_test`` under the same array contract; ``dataset.name:
image_folder`` reads ``dataset.root/{train,test}/<class>/*.png|jpg`` (trainer/image_folder.py);
``dataset.name: synthetic`` generates them (``dataset.args``: datasets.make_synthetic's).

Every problem is a :class:`~trainer.preflight.InputError` (exit 2) with the numbers.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

import datasets

from .preflight import InputError

ARRAY_SOURCES = ("npz", "image_folder", "synthetic")  # dataset.names read by this module
TRAIN_EVAL_SAMPLES = 2000  # size of the training subset TrainAccuracy evaluates
NPZ_KEYS = {"train": ("x_train", "y_train"), "test": ("x_test", "y_test")}


def transforms_for(config: Any) -> list[Any]:
    """The experiment's image preprocessing, as ``datasets.make_loader``'s transform spec."""
    d = config.dataset
    spec: list[Any] = ["hwc2chw"]  # first: resize works on the last two axes (H, W)
    if d.resize:
        spec.append({"resize": [d.resize, d.resize]})
    spec.append({"rescale": [1 / 255, 0.0]})
    if d.normalize:
        spec.append({"normalize": list(d.normalize)})
    return spec + [{"type_cast": "float32"}]


def is_pipeline(data: Any) -> bool:
    return hasattr(data, "create_tuple_iterator")


def raw_split(config: Any, split: str) -> Any:
    """``(images, labels)`` as stored, or a pipeline (``dataset.class`` only), for ``split``."""
    d = config.dataset
    if d.class_ is not None:
        from .user_code import call, resolve

        fn, _ = resolve(d.class_, None, "dataset.class")
        name = d.class_.rsplit(":", 1)[1]
        out = call(fn, {"split": split, **d.args}, name)
        what = f"dataset.class {name}(split={split!r})"
        if is_pipeline(out):
            return out
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise InputError(f"{what} returned {type(out).__name__}; it must return (images, labels) "
                             "arrays or a framework.dataset pipeline (see trainer/data.py)")
        return check_arrays(*out, what)
    if d.name == "npz":
        return npz_split(d.root, split)
    if d.name == "image_folder":
        from .image_folder import image_folder_split

        return image_folder_split(d.root, split, d.resize)
    if d.name == "synthetic":
        return datasets.make_synthetic(split, **d.args)
    return datasets.load(d.name, split, d.root)


def npz_split(path: str, split: str) -> tuple[np.ndarray, np.ndarray]:
    x_key, y_key = NPZ_KEYS[split]
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = [k for k in (x_key, y_key) if k not in archive.files]
            if missing:
                raise InputError(f"{path}: no {', '.join(missing)} in the .npz (it holds "
                                 f"{', '.join(archive.files) or 'nothing'}); dataset.name npz needs "
                                 "x_train, y_train, x_test, y_test")
            images, labels = archive[x_key], archive[y_key]
    except InputError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:  # truncated, not a zip
        raise InputError(f"{path}: not a readable .npz file ({type(error).__name__}: {error})") from None
    return check_arrays(images, labels, f"{path} ({x_key}, {y_key})")


def check_arrays(images: Any, labels: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    """The array contract: ``N x H x W [x C]`` numbers and ``N`` integer labels."""
    images, labels = np.asarray(images), np.asarray(labels)
    if images.ndim not in (3, 4) or not np.issubdtype(images.dtype, np.number):
        raise InputError(f"{what}: images must be numbers shaped N x H x W or N x H x W x C, got "
                         f"{images.dtype} {images.shape}")
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = labels[:, 0]
    if labels.ndim != 1 or len(labels) != len(images):
        raise InputError(f"{what}: labels must be {len(images)} integers (one per image), got "
                         f"shape {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        if not (np.issubdtype(labels.dtype, np.floating) and np.all(labels == np.round(labels))):
            raise InputError(f"{what}: labels must be class indices (integers), got {labels.dtype}")
    if len(labels) == 0:
        raise InputError(f"{what}: no samples")
    return images, labels.astype(np.int32)


def custom_loaders(config: Any, spec: list[Any], shard: tuple[int, int] = (1, 0)) -> tuple[Any, Any, Any]:
    """Train batches, test batches, train-accuracy subset (None for a pipeline) of an npz
    or ``dataset.class`` source (``spec``: the experiment's transforms); the train batches
    are shard ``shard[1]`` of ``shard[0]`` (data parallelism)."""
    d = config.dataset
    out = []
    raws = {split: raw_split(config, split) for split in ("train", "test")}  # all checked first
    for split, raw in raws.items():
        if is_pipeline(raw):
            out.append(raw)
            continue
        train = split == "train"
        batch = d.batch_size if train else max(d.batch_size, 256)
        out.append(datasets.make_loader(raw, batch_size=batch, shuffle=d.shuffle and train,
                                        seed=config.seed, drop_remainder=train,
                                        limit=d.limit if train else d.test_limit, transforms=spec,
                                        num_shards=shard[0] if train else 1,
                                        shard_id=shard[1] if train else 0))
        out[-1].raw_examples = np.asarray(raw[0][:2])  # as stored: the MLflow model's example
    train = out[0]
    subset = None
    if not is_pipeline(train):
        n = min(TRAIN_EVAL_SAMPLES, train.num_samples)
        subset = datasets.make_loader((train.images[:n], train.labels[:n]),
                                      batch_size=max(d.batch_size, 256), shuffle=False,
                                      drop_remainder=False)
    return out[0], out[1], subset


def first_batch(loader: Any) -> tuple[np.ndarray, np.ndarray]:
    if is_pipeline(loader):
        row = next(iter(loader.create_tuple_iterator(num_epochs=1, output_numpy=True)), None)
        if row is None or len(row) != 2:
            raise InputError("dataset.class: the pipeline gives no batches" if row is None else
                             f"dataset.class: the pipeline gives {len(row)} columns; training takes "
                             "(data, label): select two with .project([...])")
        return np.asarray(row[0]), np.asarray(row[1])
    return loader.images[:2], loader.labels


def check_model_takes_data(net: Any, loaders: dict[str, Any], model_name: str) -> int:
    """Run ``net`` eagerly on two samples of the training data: the data's shape must go
    through it and its output must be ``N x classes`` with every label < classes (for a
    pipeline, the labels of its first batch). Returns the number of classes."""
    import framework as ms

    x, _ = first_batch(loaders["train"])
    x = np.ascontiguousarray(x[:2], dtype=np.float32)
    was_training = net.training
    try:
        net.set_train(False)
        with ms.pynative():
            out = net(ms.Tensor(x))
    except Exception as error:  # noqa: BLE001 - the network refuses the data's shape
        raise InputError(f"the model ({model_name}) cannot take the data's batches shaped "
                         f"{tuple(x.shape[1:])} per sample (N x C x H x W after preprocessing): "
                         f"{type(error).__name__}: {error}") from None
    finally:
        net.set_train(was_training)
    shape = tuple(getattr(out, "shape", ()))
    dtype = (out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)).dtype
    if not np.issubdtype(dtype, np.floating):
        raise InputError(f"the model ({model_name}) gives {dtype} outputs; a classifier's "
                         "logits are floating point (a cast to an integer type has no gradient)")
    if len(shape) != 2 or shape[0] != len(x):
        raise InputError(f"the model ({model_name}) gives output {shape} for {len(x)} samples; "
                         f"a classifier must give N x classes logits")
    classes = int(shape[1])
    for split, loader in loaders.items():
        labels = first_batch(loader)[1] if is_pipeline(loader) else loader.labels
        labels = np.asarray(labels)
        low, high = int(labels.min()), int(labels.max())
        if low < 0:
            raise InputError(f"dataset ({split}) has negative labels (smallest {low}); labels must be "
                             f"class indices 0..{classes - 1} for the model ({model_name}): relabel the data")
        if high >= classes:
            raise InputError(f"dataset ({split}) has labels {low}..{high} ({high + 1} classes) but "
                             f"the model ({model_name}) gives {classes} outputs per sample; make it "
                             f"give {high + 1} (e.g. model.args.num_classes: {high + 1})")
    return classes


def data_files(config: Any) -> dict[str, dict[str, str]] | None:
    """What MLflow records for an npz or ``dataset.class`` source (None: a named dataset)."""
    d = config.dataset
    if d.class_ is not None:
        return {split: {"name": d.class_.rsplit(":", 1)[1]} for split in ("train", "test")}
    if d.name == "synthetic":
        return {split: {"name": "synthetic", **{k: str(v) for k, v in d.args.items()}}
                for split in ("train", "test")}
    if d.name == "image_folder":
        return {split: {"name": "image_folder", "images": str(Path(d.root) / split)}
                for split in ("train", "test")}
    if d.name == "npz":
        import hashlib

        digest = hashlib.sha256(Path(d.root).read_bytes()).hexdigest()
        return {split: {"name": "npz", "images": d.root, "labels": d.root, "sha256": digest}
                for split in ("train", "test")}
    return None


def describe_source(config: Any) -> str:
    d = config.dataset
    return d.class_ or (f"npz {Path(d.root).name}" if d.name == "npz" and d.root else d.name)
