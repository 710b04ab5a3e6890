"""Source datasets: ``MnistDataset``, ``FashionMnistDataset``, ``Cifar10Dataset``, ``Cifar100Dataset``,
``GeneratorDataset``, ``NumpySlicesDataset`` (MindSpore's signatures and columns).

MNIST-family folders hold the four IDX files as MindSpore expects them
(``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``, ``t10k-...``), raw or ``.gz``;
they are read with :mod:`datasets` (the project's checked IDX reader). Rows are
``image`` uint8 ``28 x 28 x 1`` and ``label`` uint32, as MindSpore gives them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from datasets.errors import DatasetError, DatasetNotFoundError
from datasets.sources import MNIST_FILES, find_file, load_pair

from .source_nodes import SourceDataset, StreamDataset
from .stores import ArrayStore, ItemStore

USAGES = ("train", "test", "all")


def _usage(usage: str | None, what: str) -> list[str]:
    usage = "all" if usage is None else usage
    if usage not in USAGES:
        raise ValueError(f"{what}: usage must be 'train', 'test' or 'all', got {usage!r}")
    return ["train", "test"] if usage == "all" else [usage]


def _folder(dataset_dir: str | os.PathLike[str], what: str) -> Path:
    folder = Path(dataset_dir).expanduser()
    if not folder.is_dir():
        raise DatasetNotFoundError(f"{what}: dataset_dir {folder} is not a folder")
    return folder


def read_mnist_folder(dataset_dir: str | os.PathLike[str], usage: str | None,
                      what: str = "MnistDataset") -> tuple[np.ndarray, np.ndarray]:
    """Images ``N x 28 x 28 x 1`` uint8 and labels uint32 of the ``usage`` splits in a folder."""
    folder = _folder(dataset_dir, what)
    images, labels, missing = [], [], []
    for split in _usage(usage, what):
        paths = [find_file(folder, name) for name in MNIST_FILES[split]]
        if None in paths:
            missing += [n.removesuffix(".gz") for n, p in zip(MNIST_FILES[split], paths, strict=True)
                        if p is None]
            continue
        x, y = load_pair(paths[0], paths[1])
        images.append(x)
        labels.append(y)
    if not images or (usage not in (None, "all") and missing):
        raise DatasetNotFoundError(f"{what}: {folder} lacks {', '.join(missing)} (raw or .gz) for "
                                   f"usage={usage!r}")
    x = np.concatenate(images) if len(images) > 1 else images[0]
    return x[..., np.newaxis], np.concatenate(labels).astype(np.uint32)


class MnistDataset(SourceDataset):
    """``MnistDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``; columns
    ``image``, ``label``. ``usage`` None or ``'all'`` reads the train and test files found."""

    _what = "MnistDataset"

    def __init__(self, dataset_dir: str | os.PathLike[str], usage: str | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        images, labels = read_mnist_folder(dataset_dir, usage, self._what)
        super().__init__(ArrayStore(["image", "label"], [images, labels]), shuffle, num_samples,
                         num_shards, shard_id, sampler)


class FashionMnistDataset(MnistDataset):
    """``FashionMnistDataset``: the same layout and signature as :class:`MnistDataset`."""

    _what = "FashionMnistDataset"



def read_cifar10_folder(dataset_dir: str | os.PathLike[str],
                        usage: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Images ``N x 32 x 32 x 3`` uint8 and labels uint32 from the binary version's files."""
    folder = _folder(dataset_dir, "Cifar10Dataset")
    names = {"train": [f"data_batch_{i}.bin" for i in range(1, 6)], "test": ["test_batch.bin"]}
    wanted = [n for split in _usage(usage, "Cifar10Dataset") for n in names[split]]
    found = [folder / n for n in wanted if (folder / n).is_file()]
    if not found or (usage not in (None, "all") and len(found) != len(wanted)):
        missing = [n for n in wanted if not (folder / n).is_file()]
        raise DatasetNotFoundError(f"Cifar10Dataset: {folder} lacks {', '.join(missing)} for usage={usage!r} "
                                   "(the CIFAR-10 binary version)")
    from datasets.cifar import SPECS, parse_binary_batch

    parts = [parse_binary_batch(path.read_bytes(), str(path), SPECS["cifar10"]) for path in found]
    images = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1] for p in parts])
    if labels.max() > 9:
        raise DatasetError(f"{folder}: label {int(labels.max())} out of range for CIFAR-10's 10 classes")
    return images, labels.astype(np.uint32)


class Cifar10Dataset(SourceDataset):
    """``Cifar10Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``; columns
    ``image`` (uint8 ``32 x 32 x 3``) and ``label`` (uint32)."""

    def __init__(self, dataset_dir: str | os.PathLike[str], usage: str | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        images, labels = read_cifar10_folder(dataset_dir, usage)
        super().__init__(ArrayStore(["image", "label"], [images, labels]), shuffle, num_samples,
                         num_shards, shard_id, sampler)


class Cifar100Dataset(SourceDataset):
    """``Cifar100Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)`` over the binary
    version's ``train.bin``/``test.bin``; columns ``image`` (uint8 ``32 x 32 x 3``),
    ``coarse_label`` and ``fine_label`` (uint32), as MindSpore's."""

    def __init__(self, dataset_dir: str | os.PathLike[str], usage: str | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        from datasets.cifar import PIXELS, SPECS, parse_binary_batch

        folder = _folder(dataset_dir, "Cifar100Dataset")
        wanted = [f"{split}.bin" for split in _usage(usage, "Cifar100Dataset")]
        missing = [n for n in wanted if not (folder / n).is_file()]
        if missing:
            raise DatasetNotFoundError(f"Cifar100Dataset: {folder} lacks {', '.join(missing)} for "
                                       f"usage={usage!r} (the CIFAR-100 binary version)")
        images, coarse, fine = [], [], []
        for name in wanted:
            data = (folder / name).read_bytes()
            x, y = parse_binary_batch(data, str(folder / name), SPECS["cifar100"])
            images.append(x)
            fine.append(y.astype(np.uint32))
            coarse.append(np.frombuffer(data, np.uint8).reshape(-1, 2 + PIXELS)[:, 0].astype(np.uint32))
        fine_all = np.concatenate(fine)
        if fine_all.max() > 99:
            raise DatasetError(f"{folder}: fine label {int(fine_all.max())} out of range for CIFAR-100")
        store = ArrayStore(["image", "coarse_label", "fine_label"],
                           [np.concatenate(images), np.concatenate(coarse), fine_all])
        super().__init__(store, shuffle, num_samples, num_shards, shard_id, sampler)


def _names(column_names: str | Sequence[str] | None, width: int | None, what: str) -> list[str]:
    if column_names is None:
        return [f"column_{i}" for i in range(width or 1)]
    names = [column_names] if isinstance(column_names, str) else list(column_names)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"{what}: column_names must be distinct names, got {column_names!r}")
    return names


def GeneratorDataset(source: Any, column_names: str | Sequence[str] | None = None,  # noqa: N802
                     column_types: Any = None, schema: Any = None, num_samples: int | None = None,
                     num_parallel_workers: int = 1, shuffle: bool | None = None, sampler: Any = None,
                     num_shards: int | None = None, shard_id: int | None = None,
                     python_multiprocessing: bool = True, max_rowsize: Any = None) -> Any:
    """Rows from Python: a random-access ``source`` (``__getitem__`` + ``__len__``: shuffled by
    default, sharded, resumable by position) or an iterable / a function returning an
    iterator (read in order; ``shuffle=True`` is refused, as in MindSpore)."""
    if hasattr(source, "__getitem__") and hasattr(source, "__len__"):
        if not len(source):
            raise ValueError("GeneratorDataset: the source is empty")
        first = source[0]
        width = len(first) if isinstance(first, tuple | list) else 1
        store = ItemStore(_names(column_names, width, "GeneratorDataset"), source)
        return SourceDataset(store, shuffle, num_samples, num_shards, shard_id, sampler)
    if not (callable(source) or hasattr(source, "__iter__")):
        raise TypeError(f"GeneratorDataset: source must be random-access, iterable or a generator function, "
                        f"got {type(source).__name__}")
    if sampler is not None:
        raise ValueError("GeneratorDataset: sampler is not supported if source does not have attribute "
                         "'__getitem__' (and '__len__')")
    if shuffle:
        raise ValueError("GeneratorDataset: shuffle=True needs a random-access source "
                         "(__getitem__ and __len__); use .shuffle(buffer_size) on an iterable")
    if (num_shards is None) != (shard_id is None):
        raise ValueError("num_shards and shard_id must be given together")
    names = _names(column_names, None, "GeneratorDataset")
    return StreamDataset(source, names, num_samples, num_shards, shard_id)


def NumpySlicesDataset(data: Any, column_names: str | Sequence[str] | None = None,  # noqa: N802
                       num_samples: int | None = None, num_parallel_workers: int = 1,
                       shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                       shard_id: int | None = None) -> SourceDataset:
    """Slices of ``data`` along its first axis: an array or list (one column), a tuple of
    them (one column each) or a dict (columns named by its keys)."""
    if isinstance(data, Mapping):
        names = [str(k) for k in data]
        arrays = [np.asarray(v) for v in data.values()]
    else:
        arrays = [np.asarray(v) for v in data] if isinstance(data, tuple) else [np.asarray(data)]
        names = _names(column_names, len(arrays), "NumpySlicesDataset")
    if len(names) != len(arrays):
        raise ValueError(f"NumpySlicesDataset: {len(names)} column_names for {len(arrays)} columns")
    if any(a.ndim == 0 for a in arrays):
        raise ValueError("NumpySlicesDataset: data must have a first axis to slice along")
    return SourceDataset(ArrayStore(names, arrays), shuffle, num_samples, num_shards, shard_id, sampler)
