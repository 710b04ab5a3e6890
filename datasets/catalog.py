"""Every named dataset, whatever its file layout: the MNIST family (IDX files,
datasets/sources.py) and CIFAR-10/100 (python or binary batches, datasets/cifar.py).

``load``/``files_used``/``names`` here are what ``datasets.load`` etc. are; each name is
routed to the module that knows its layout. Both modules share one search path
(:func:`datasets.sources.search_paths`) and one download helper.
"""

from __future__ import annotations

import os

import numpy as np

from . import cifar, sources
from .errors import DatasetError


def names() -> list[str]:
    """Every dataset name ``load`` takes."""
    return sorted([*sources.names(), *cifar.SPECS])


def _check(name: str) -> None:
    key = name.strip().lower().replace("_", "-")
    if cifar.spec_of(name) is None and key not in sources.names():
        import difflib

        close = difflib.get_close_matches(key, names(), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise DatasetError(f"unknown dataset {name!r}{hint}; known datasets: {', '.join(names())}")


def load(name: str, split: str = "train", root: str | os.PathLike[str] | None = None, *,
         download: bool = True, progress: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Images (uint8: N x H x W for the MNIST family, N x 32 x 32 x 3 for CIFAR) and labels
    (int32 N) of a named dataset split."""
    _check(name)
    if cifar.spec_of(name) is not None:
        return cifar.load(name, split, root, download=download, progress=progress)
    return sources.load(name, split, root, download=download, progress=progress)


def files_used(name: str, split: str = "train", root: str | os.PathLike[str] | None = None
               ) -> dict[str, str]:
    """The files ``load`` reads and one SHA-256 over them (empty when not on disk yet)."""
    _check(name)
    if cifar.spec_of(name) is not None:
        return cifar.files_used(name, split, root)
    return sources.files_used(name, split, root)


def canonical(name: str) -> str:
    """The registered spelling of ``name`` (``Fashion_MNIST`` -> ``fashion-mnist``)."""
    spec = cifar.spec_of(name)
    return spec.name if spec is not None else sources.get_spec(name).name


def fallback_folders(name: str) -> tuple[str, ...]:
    """Folders used instead of ``name`` when its own files are missing (``mnist-10k``)."""
    return () if cifar.spec_of(name) is not None else sources.get_spec(name).fallback_folders
