"""Named datasets (MNIST, Fashion-MNIST, the local MNIST subset): where to find, how to fetch.

Root resolution for ``load(name, split, root)``, first match wins:

1. ``root`` (the experiment's ``dataset.root``): the folder holding the files, or its
   ``<name>`` subfolder. An explicit root is the only place looked at: when it holds no
   files the load fails naming what is missing (a typo must not train on other data);
   the places below are the implicit search, used when no root is given;
2. ``$TRAIN_DATA_DIR/<name>``;
3. ``/usr/share/datasets/<name>`` (Debian's ``dataset-fashion-mnist`` installs there);
4. the per-user cache ``$XDG_CACHE_HOME/twinmode/datasets/<name>``
   (default ``~/.cache/twinmode/datasets/<name>``);
5. for ``mnist`` only: the same places with ``mnist-10k`` (a 10,000-image training subset),
   with a warning;
6. download into the cache from the dataset's mirrors, verifying MD5 checksums.

Each file may be gzip-compressed (``*.gz``) or raw.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .download import download_file
from .errors import ChecksumError, DatasetError, DatasetNotFoundError, DownloadError, IdxFormatError
from .idx import MAGIC_IMAGES, MAGIC_LABELS, read_idx

SPLITS = ("train", "test")
SYSTEM_DIR = Path("/usr/share/datasets")
MNIST_FILES: Mapping[str, tuple[str, str]] = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset in the MNIST file layout: file names per split, checksums and mirrors.

    ``checksums`` maps a file name to its accepted MD5s (of the ``.gz`` file, or of its
    decompressed content).  A spec without ``mirrors`` is local-only.
    """

    name: str
    files: Mapping[str, tuple[str, str]] = field(default_factory=lambda: dict(MNIST_FILES))
    checksums: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    mirrors: tuple[str, ...] = ()
    fallback_folders: tuple[str, ...] = ()
    num_classes: int = 10
    description: str = ""


_REGISTRY: dict[str, DatasetSpec] = {}


def register(spec: DatasetSpec) -> DatasetSpec:
    """Add (or replace) a named dataset."""
    _REGISTRY[spec.name] = spec
    return spec


def names() -> list[str]:
    """Registered dataset names."""
    return sorted(_REGISTRY)


def get_spec(name: str) -> DatasetSpec:
    key = name.strip().lower().replace("_", "-")
    if key not in _REGISTRY:
        raise DatasetError(f"unknown dataset {name!r}; known datasets: {', '.join(names())}")
    return _REGISTRY[key]


register(DatasetSpec(
    name="mnist",
    checksums={
        "train-images-idx3-ubyte.gz": ("f68b3c2dcbeaaa9fbdd348bbdeb94873",),
        "train-labels-idx1-ubyte.gz": ("d53e105ee54ea40749a09fcbcd1e9432",),
        "t10k-images-idx3-ubyte.gz": ("9fb629c4189551a2d022fa330f9573f3",),
        "t10k-labels-idx1-ubyte.gz": ("ec29112dd5afa0611ce80d1b7f02629c",),
    },
    mirrors=(
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
        "https://storage.googleapis.com/cvdf-datasets/mnist/",
    ),
    fallback_folders=("mnist-10k",),
    description="MNIST handwritten digits, 60,000 train / 10,000 test",
))
register(DatasetSpec(
    name="fashion-mnist",
    # Published MD5 of the official .gz, then MD5 of the decompressed IDX content (which
    # also verifies Debian's re-compressed copies in /usr/share/datasets/fashion-mnist).
    checksums={
        "train-images-idx3-ubyte.gz": (
            "8d4fb7e6c68d591d4c3dfef9ec88bf0d", "f4a8712d7a061bf5bd6d2ca38dc4d50a"),
        "train-labels-idx1-ubyte.gz": (
            "25c81989df183df01b3e8a0aad5dffbe", "9018921c3c673c538a1fc5bad174d6f9"),
        "t10k-images-idx3-ubyte.gz": (
            "bef4ecab320f06d8554ea6380940ec79", "8181f5470baa50b63fa0f6fddb340f0a"),
        "t10k-labels-idx1-ubyte.gz": (
            "bb300cfdad3c16e7a12a480ee83cd310", "15d484375f8d13e6eb1aabb0c3f46965"),
    },
    mirrors=(
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
        "https://github.com/zalandoresearch/fashion-mnist/raw/master/data/fashion/",
    ),
    description="Fashion-MNIST (Zalando), 60,000 train / 10,000 test",
))
register(DatasetSpec(
    name="mnist-10k",
    description="MNIST subset, 10,000 train / official 10,000 test; local files only",
))


def cache_dir() -> Path:
    """Per-user download cache: ``$XDG_CACHE_HOME/twinmode/datasets`` or ``~/.cache/...``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "twinmode" / "datasets"


def search_paths(
    name: str, root: str | os.PathLike[str] | None = None, *, fallback: bool = True
) -> list[tuple[Path, str, bool]]:
    """Folders searched for ``name`` in order: (folder, label for messages, is a fallback).
    ``name`` may be a dataset of another layout (CIFAR, datasets/cifar.py): its folder is
    ``<name>`` in the same places, with no fallback folders."""
    key = name.strip().lower().replace("_", "-")
    spec = _REGISTRY.get(key) or DatasetSpec(name=key)
    bases: list[tuple[Path, str]] = []
    if env := os.environ.get("TRAIN_DATA_DIR"):
        bases.append((Path(env), "$TRAIN_DATA_DIR"))
    bases += [(SYSTEM_DIR, "system"), (cache_dir(), "cache")]
    folders = (spec.name, *spec.fallback_folders) if fallback else (spec.name,)
    places: list[tuple[Path, str, bool]] = []
    for folder in folders:
        alt = folder != spec.name
        if root is not None:
            if not alt:
                places.append((Path(root).expanduser(), "root", False))
            places.append((Path(root).expanduser() / folder, "root", alt))
        places += [(base / folder, label, alt) for base, label in bases]
    return places


def find_file(folder: Path, filename: str) -> Path | None:
    """``name.gz``, the raw ``name``, or the dotted ``train-images.idx3-ubyte`` variants."""
    stem = filename.removesuffix(".gz")
    dotted = stem.replace("-idx", ".idx")
    for candidate in (filename, stem, dotted + ".gz", dotted):
        path = folder / candidate
        if path.is_file():
            return path
    return None


def locate(
    name: str, split: str = "train", root: str | os.PathLike[str] | None = None
) -> tuple[Path, Path] | None:
    """The (images, labels) files of a split from the first folder holding both, or None."""
    return _search(get_spec(name), split, root)[0]


def _check_split(spec: DatasetSpec, split: str) -> tuple[str, str]:
    if split not in spec.files:
        raise DatasetError(f"{spec.name}: unknown split {split!r}; use one of {list(spec.files)}")
    return spec.files[split]


_FALLBACKS_SAID: set[tuple[str, Path]] = set()


def _search(
    spec: DatasetSpec, split: str, root: str | os.PathLike[str] | None
) -> tuple[tuple[Path, Path] | None, list[str]]:
    wanted = _check_split(spec, split)
    looked: list[str] = []
    for folder, label, alt in search_paths(spec.name, root):
        if not folder.is_dir():
            looked.append(f"{folder} ({label}: no such folder)")
            continue
        found = [find_file(folder, f) for f in wanted]
        if found[0] is not None and found[1] is not None:
            if alt and (spec.name, folder) not in _FALLBACKS_SAID:  # once per process, not per split
                _FALLBACKS_SAID.add((spec.name, folder))
                warnings.warn(
                    f"{spec.name}: no full {spec.name} files found, using {folder} instead",
                    stacklevel=3,
                )
            return (found[0], found[1]), looked
        missing = [
            f.removesuffix(".gz") + "[.gz]" for f, p in zip(wanted, found, strict=True) if p is None
        ]
        looked.append(f"{folder} ({label}: missing {', '.join(missing)})")
    return None, looked


def _hint(spec: DatasetSpec) -> str:
    return (
        f"set TRAIN_DATA_DIR to a folder containing {spec.name}/ or dataset.root to the folder "
        f"holding the files"
    )


def _download(
    spec: DatasetSpec, split: str, looked: list[str], progress: bool
) -> tuple[Path, Path]:
    wanted = _check_split(spec, split)
    hint = _hint(spec)
    if not os.environ.get("TRAIN_DATA_DIR"):
        looked = [*looked, "$TRAIN_DATA_DIR (not set)"]
    head = (
        f"{spec.name} ({split}): files {', '.join(wanted)} not found "
        f"(raw or .gz); looked in: {'; '.join(looked)}"
    )
    if not spec.mirrors:
        raise DatasetNotFoundError(f"{head}; {spec.name} is local-only (no download); {hint}")
    target = cache_dir() / spec.name
    paths = []
    for filename in wanted:
        existing = find_file(target, filename)
        if existing is not None:
            paths.append(existing)
            continue
        try:
            paths.append(download_file(
                filename, target, spec.mirrors, spec.checksums.get(filename, ()),
                progress=progress,
            ))
        except ChecksumError:
            raise
        except DownloadError as exc:
            raise DatasetNotFoundError(f"{head}; {exc}; {hint}") from exc
    return paths[0], paths[1]


def load(
    name: str,
    split: str = "train",
    root: str | os.PathLike[str] | None = None,
    *,
    download: bool = True,
    progress: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Images (uint8, N x H x W, read-only) and labels (int32, N) of a named dataset split."""
    spec = get_spec(name)
    if root is not None:
        return load_pair(*_in_root(spec, split, Path(root).expanduser()), num_classes=spec.num_classes)
    found, looked = _search(spec, split, root)
    if found is None:
        if not download:
            raise DatasetNotFoundError(
                f"{spec.name} ({split}): files not found and download disabled; "
                f"looked in: {'; '.join(looked)}; {_hint(spec)}"
            )
        found = _download(spec, split, looked, progress)
    return load_pair(*found, num_classes=spec.num_classes)


def files_used(
    name: str, split: str = "train", root: str | os.PathLike[str] | None = None
) -> dict[str, str]:
    """Which files ``load(name, split, root)`` reads, for the record: their paths and one
    SHA-256 over both (empty when they are not on disk yet)."""
    spec = get_spec(name)
    if root is not None:
        found: tuple[Path, Path] | None = _in_root(spec, split, Path(root).expanduser())
    else:
        found = _search(spec, split, None)[0]
    if found is None:
        return {}
    return {"images": str(found[0].resolve()), "labels": str(found[1].resolve()),
            "sha256": files_sha256(found)}


def files_sha256(paths: Iterable[Path]) -> str:
    """One SHA-256 over the bytes of ``paths``, in order (read in 1 MiB chunks)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()


def _in_root(spec: DatasetSpec, split: str, root: Path) -> tuple[Path, Path]:
    """The split's files under an explicit ``root`` (itself or ``root/<name>``), or an error
    naming the files missing in each place."""
    wanted = _check_split(spec, split)
    places = [(folder, alt) for folder, label, alt in search_paths(spec.name, root) if label == "root"]
    looked = []
    for folder, alt in places:
        if not folder.is_dir():
            looked.append(f"{folder} (no such folder)")
            continue
        found = [find_file(folder, f) for f in wanted]
        if found[0] is not None and found[1] is not None:
            if alt:
                warnings.warn(f"{spec.name}: no full {spec.name} files in dataset.root, using {folder}",
                              stacklevel=3)
            return found[0], found[1]
        missing = [f.removesuffix(".gz") + "[.gz]" for f, p in zip(wanted, found, strict=True) if p is None]
        looked.append(f"{folder} (missing {', '.join(missing)})")
    raise DatasetNotFoundError(
        f"dataset.root {root} holds no {spec.name} {split} files: {'; '.join(looked)}; fix "
        f"dataset.root, or remove it to search $TRAIN_DATA_DIR/{spec.name}, "
        f"{SYSTEM_DIR}/{spec.name} and the cache")


def load_pair(
    images_path: str | os.PathLike[str],
    labels_path: str | os.PathLike[str],
    num_classes: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Read and cross-check an images file (magic 2051) and a labels file (magic 2049)."""
    images = read_idx(images_path, MAGIC_IMAGES)
    labels = read_idx(labels_path, MAGIC_LABELS)
    if len(images) != len(labels):
        raise IdxFormatError(
            f"{images_path} has {len(images)} images but {labels_path} has {len(labels)} "
            f"labels; the files do not belong together"
        )
    if num_classes is not None and labels.size and int(labels.max()) >= num_classes:
        raise IdxFormatError(
            f"{labels_path}: label {int(labels.max())} out of range for {num_classes} classes"
        )
    return images, labels.astype(np.int32)
