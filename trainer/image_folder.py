"""``dataset.name: image_folder``: ``<root>/train/<class>/*.png|jpg`` and ``<root>/test/...``
read with Pillow into the array contract of trainer/data.py.

Classes are the sorted subfolder names of ``train/`` (labels 0..K-1, as torchvision's
ImageFolder numbers them); ``test/`` may hold a subset of them. Images are grayscale
(``N x H x W``) when every image is, else RGB (``N x H x W x 3``). With ``dataset.resize``
each image is resized to it while loading (bilinear), so sizes may differ; without it all
must have one size. Problems are :class:`~trainer.preflight.InputError` naming the file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .preflight import InputError

EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp"}


def classes_of(root: Path) -> list[str]:
    folder = root / "train"
    if not folder.is_dir():
        raise InputError(f"dataset.root {root}: no train/ folder; image_folder expects "
                         f"{root}/train/<class>/*.png and {root}/test/<class>/*.png")
    names = sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not names:
        raise InputError(f"{folder}: no class folders (expected {folder}/<class>/*.png)")
    return names


def image_folder_split(root: str, split: str, resize: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The images of ``<root>/<split>/<class>/`` as ``(N x H x W[ x 3]) uint8`` and their
    labels (the class's index among ``train/``'s classes) as ``int32``."""
    files = _listing(root, split)
    arrays = _to_arrays(_read_images([path for path, _ in files]), resize)
    _check_one_size(arrays, [path for path, _ in files])
    return np.stack(arrays), np.array([label for _, label in files], np.int32)


def _listing(root: str, split: str) -> list[tuple[Path, int]]:
    """Every image file of ``<root>/<split>`` with its label, class by class (sorted)."""
    base = Path(root)
    classes = classes_of(base)
    folder = base / split
    if not folder.is_dir():
        raise InputError(f"dataset.root {root}: no {split}/ folder (expected {folder}/<class>/...)")
    files: list[tuple[Path, int]] = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if sub.name not in classes:
            raise InputError(f"{sub}: class {sub.name!r} is not among train/'s classes "
                             f"({', '.join(classes)})")
        found = sorted(p for p in sub.iterdir() if p.suffix.lower() in EXTENSIONS)
        if not found:
            raise InputError(f"{sub}: no images ({', '.join(sorted(EXTENSIONS))})")
        files += [(p, classes.index(sub.name)) for p in found]
    if not files:
        raise InputError(f"{folder}: no class folders with images")
    return files


def _read_images(paths: list[Path]) -> list:
    """Each file read with Pillow (fully loaded, the file closed again)."""
    from PIL import Image, UnidentifiedImageError

    images = []
    for path in paths:
        try:
            with Image.open(path) as image:
                image.load()
                images.append(image.copy())
        except (UnidentifiedImageError, OSError) as error:
            raise InputError(f"{path}: not a readable image ({error})") from None
    return images


def _to_arrays(images: list, resize: int | None) -> list[np.ndarray]:
    """Grayscale arrays when every image is grayscale, else RGB; each resized (bilinear) to
    ``resize x resize`` when asked."""
    from PIL import Image

    gray = all(im.mode in ("L", "1", "I;16", "I") for im in images)
    arrays = []
    for image in images:
        image = image.convert("L" if gray else "RGB")
        if resize:
            image = image.resize((resize, resize), Image.BILINEAR)
        arrays.append(np.asarray(image, dtype=np.uint8))
    return arrays


def _check_one_size(arrays: list[np.ndarray], paths: list[Path]) -> None:
    """An ``InputError`` naming the first image whose size differs from the first one's."""
    first = arrays[0].shape[:2]
    other = next((i for i, a in enumerate(arrays) if a.shape[:2] != first), None)
    if other is not None:
        raise InputError(f"{paths[other]} is {arrays[other].shape[1]}x{arrays[other].shape[0]} but "
                         f"{paths[0]} is {first[1]}x{first[0]}; set dataset.resize to load them "
                         "at one size")
