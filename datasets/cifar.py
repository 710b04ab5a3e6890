"""CIFAR-10 and CIFAR-100 (Krizhevsky 2009): the official python and binary versions.

``load("cifar10", split)`` returns images ``uint8 N x 32 x 32 x 3`` (channels last, as the
files' 1024 R, 1024 G, 1024 B bytes per image, row-major) and labels ``int32 N`` (CIFAR-100:
the 100 fine labels).

Where the files are looked for: the same places as the MNIST family
(:func:`datasets.sources.search_paths`: ``dataset.root`` alone when given, else
``$TRAIN_DATA_DIR/<name>``, ``/usr/share/datasets/<name>``, the per-user cache). In each
folder, first match wins:

1. the python version unpacked: ``cifar-10-batches-py/`` (``data_batch_1..5``,
   ``test_batch``) or ``cifar-100-python/`` (``train``, ``test``), or those files in the
   folder itself;
2. the binary version unpacked: ``cifar-10-batches-bin/`` (``data_batch_1..5.bin``,
   ``test_batch.bin``) or ``cifar-100-binary/`` (``train.bin``, ``test.bin``), or the files
   in the folder itself;
3. the archive ``cifar-10-python.tar.gz`` / ``cifar-100-python.tar.gz`` (or the binary
   ``...-binary.tar.gz``), read without unpacking it.

When nothing is found the python archive is downloaded into the cache from the official
site, verified against its published MD5 and moved into place atomically
(:func:`datasets.download.download_file`).

The python batches are pickles; they are read with an unpickler that only builds plain
containers and NumPy arrays, so a file that is not a CIFAR batch cannot run code. Every
broken file (truncated archive, wrong pickle, short record) is a one-line
:class:`CifarFormatError` naming the file.
"""

from __future__ import annotations

import io
import os
import pickle
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .download import download_file
from .errors import DatasetError, DatasetNotFoundError, DownloadError
from .sources import cache_dir, files_sha256, search_paths

PIXELS = 3 * 32 * 32


class CifarFormatError(DatasetError):
    """A CIFAR file or archive is truncated, corrupt or not CIFAR."""


@dataclass(frozen=True)
class CifarSpec:
    """One CIFAR dataset: the members of each version per split, and where to download."""

    name: str
    classes: int
    py_dir: str  # folder inside the python archive
    py_files: dict[str, tuple[str, ...]]
    label_key: bytes  # key of the labels in a python batch
    bin_dir: str
    bin_files: dict[str, tuple[str, ...]]
    label_bytes: int  # leading label bytes per binary record; the class is the last of them
    archive: str  # the python archive, the one downloaded
    md5: str
    bin_archive: str
    url: str = "https://www.cs.toronto.edu/~kriz/"


SPECS = {
    "cifar10": CifarSpec(
        "cifar10", 10, "cifar-10-batches-py",
        {"train": tuple(f"data_batch_{i}" for i in range(1, 6)), "test": ("test_batch",)},
        b"labels", "cifar-10-batches-bin",
        {"train": tuple(f"data_batch_{i}.bin" for i in range(1, 6)), "test": ("test_batch.bin",)},
        1, "cifar-10-python.tar.gz", "c58f30108f718f92721af3b95e74349a", "cifar-10-binary.tar.gz"),
    "cifar100": CifarSpec(
        "cifar100", 100, "cifar-100-python", {"train": ("train",), "test": ("test",)},
        b"fine_labels", "cifar-100-binary", {"train": ("train.bin",), "test": ("test.bin",)},
        2, "cifar-100-python.tar.gz", "eb9058c3a382ffc7106e4002c42a8d85", "cifar-100-binary.tar.gz"),
}
ALIASES = {"cifar-10": "cifar10", "cifar-100": "cifar100"}


def spec_of(name: str) -> CifarSpec | None:
    key = name.strip().lower().replace("_", "-")
    return SPECS.get(ALIASES.get(key, key))


# -- reading one batch ----------------------------------------------------------------------
class _SafeUnpickler(pickle.Unpickler):
    """Builds dicts, lists, bytes, numbers and NumPy arrays only (what a CIFAR batch holds)."""

    ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
               ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
               ("numpy._core.multiarray", "scalar"), ("_codecs", "encode")}

    def find_class(self, module: str, name: str):  # noqa: ANN201 - pickle's protocol
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"refusing to build {module}.{name}")
        return super().find_class(module, name)


def parse_python_batch(data: bytes, where: str, spec: CifarSpec) -> tuple[np.ndarray, np.ndarray]:
    """Images ``N x 32 x 32 x 3`` and labels from one pickled batch (a dict with ``b'data'``
    ``N x 3072`` uint8 and ``spec.label_key`` ``N`` ints)."""
    try:
        batch = _SafeUnpickler(io.BytesIO(data), encoding="bytes").load()
    except Exception as error:  # noqa: BLE001 - any unpickling failure is a bad file
        raise CifarFormatError(f"{where}: not a CIFAR python batch ({type(error).__name__}: "
                               f"{error}); the file is truncated or corrupt") from None
    if not isinstance(batch, dict) or b"data" not in batch or spec.label_key not in batch:
        keys = sorted(batch)[:6] if isinstance(batch, dict) else type(batch).__name__
        raise CifarFormatError(f"{where}: not a {spec.name} batch: needs keys b'data' and "
                               f"{spec.label_key!r}, found {keys}")
    images, labels = np.asarray(batch[b"data"]), np.asarray(batch[spec.label_key])
    if images.dtype != np.uint8 or images.ndim != 2 or images.shape[1] != PIXELS:
        raise CifarFormatError(f"{where}: b'data' must be uint8 N x {PIXELS}, got {images.dtype} "
                               f"{images.shape}")
    if labels.ndim != 1 or len(labels) != len(images) or not np.issubdtype(labels.dtype, np.integer):
        raise CifarFormatError(f"{where}: {len(images)} images but labels shaped {labels.shape} "
                               f"({labels.dtype}); the batch is corrupt")
    return _hwc(images), labels.astype(np.int32)


def parse_binary_batch(data: bytes, where: str, spec: CifarSpec) -> tuple[np.ndarray, np.ndarray]:
    """Records of ``label_bytes`` label bytes then 3072 pixel bytes."""
    record = spec.label_bytes + PIXELS
    if not data or len(data) % record:
        raise CifarFormatError(f"{where}: {len(data)} bytes is not a whole number of {record}-byte "
                               f"{spec.name} records; the file is truncated or not {spec.name} binary")
    rows = np.frombuffer(data, np.uint8).reshape(-1, record)
    return _hwc(rows[:, spec.label_bytes:]), rows[:, spec.label_bytes - 1].astype(np.int32)


def _hwc(rows: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(rows.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))


# -- finding the files ---------------------------------------------------------------------
def _in_folder(folder: Path, spec: CifarSpec, split: str) -> tuple[str, Path] | None:
    """(version, folder or archive) holding the split in ``folder``, or None."""
    for version, sub, files in (("python", spec.py_dir, spec.py_files),
                                ("binary", spec.bin_dir, spec.bin_files)):
        for place in (folder / sub, folder):
            if all((place / f).is_file() for f in files[split]):
                return version, place
    for version, archive in (("python", spec.archive), ("binary", spec.bin_archive)):
        if (folder / archive).is_file():
            return f"{version}-archive", folder / archive
    return None


def _wanted(spec: CifarSpec) -> str:
    return (f"{spec.py_dir}/, {spec.bin_dir}/, {spec.archive} or {spec.bin_archive}")


def locate(spec: CifarSpec, split: str, root: str | os.PathLike[str] | None
           ) -> tuple[tuple[str, Path] | None, list[str]]:
    looked = []
    for folder, label, _ in search_paths(spec.name, root, fallback=False):
        if root is not None and label != "root":
            continue  # an explicit root is the only place looked at
        if not folder.is_dir():
            looked.append(f"{folder} ({label}: no such folder)")
            continue
        found = _in_folder(folder, spec, split)
        if found is not None:
            return found, looked
        looked.append(f"{folder} ({label}: no {spec.name} files)")
    return None, looked


def _read_archive(path: Path, spec: CifarSpec, version: str, split: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    sub, files = (spec.py_dir, spec.py_files) if version == "python" else (spec.bin_dir, spec.bin_files)
    parse = parse_python_batch if version == "python" else parse_binary_batch
    parts = []
    try:
        with tarfile.open(path, "r:*") as tar:
            members = {m.name.lstrip("./"): m for m in tar.getmembers() if m.isfile()}
            for name in files[split]:
                member = members.get(f"{sub}/{name}")
                if member is None:
                    raise CifarFormatError(f"{path}: the archive has no {sub}/{name}; is it the "
                                           f"official {spec.name} {version} archive?")
                handle = tar.extractfile(member)
                parts.append(parse(handle.read(), f"{path}:{sub}/{name}", spec))
    except CifarFormatError:
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
        raise CifarFormatError(f"{path}: truncated or corrupt archive ({type(error).__name__}: "
                               f"{error}); delete it to download it again") from None
    return _join(parts)


def _read_folder(folder: Path, spec: CifarSpec, version: str, split: str
                 ) -> tuple[np.ndarray, np.ndarray]:
    files = spec.py_files if version == "python" else spec.bin_files
    parse = parse_python_batch if version == "python" else parse_binary_batch
    parts = []
    for name in files[split]:
        path = folder / name
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CifarFormatError(f"{path}: cannot read file ({error.strerror or error})") from None
        parts.append(parse(data, str(path), spec))
    return _join(parts)


def _join(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    if len(parts) == 1:
        return parts[0]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def read(found: tuple[str, Path], spec: CifarSpec, split: str) -> tuple[np.ndarray, np.ndarray]:
    version, path = found
    if version.endswith("-archive"):
        images, labels = _read_archive(path, spec, version.removesuffix("-archive"), split)
    else:
        images, labels = _read_folder(path, spec, version, split)
    if labels.size and (labels.min() < 0 or labels.max() >= spec.classes):
        raise CifarFormatError(f"{path}: label {int(labels.max())} out of range for {spec.name}'s "
                               f"{spec.classes} classes")
    images.flags.writeable = False
    return images, labels


def load(name: str, split: str = "train", root: str | os.PathLike[str] | None = None, *,
         download: bool = True, progress: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Images (uint8 ``N x 32 x 32 x 3``, read-only) and labels (int32 ``N``) of a split."""
    spec = spec_of(name)
    if spec is None:
        raise DatasetError(f"unknown CIFAR dataset {name!r}; use cifar10 or cifar100")
    if split not in spec.py_files:
        raise DatasetError(f"{spec.name}: unknown split {split!r}; use one of {list(spec.py_files)}")
    found, looked = locate(spec, split, root)
    if found is None:
        if not os.environ.get("TRAIN_DATA_DIR") and root is None:
            looked.append("$TRAIN_DATA_DIR (not set)")
        head = f"{spec.name} ({split}): no {_wanted(spec)} found; looked in: {'; '.join(looked)}"
        if root is not None:
            raise DatasetNotFoundError(f"{head}; fix dataset.root, or remove it to search "
                                       f"$TRAIN_DATA_DIR/{spec.name} and the cache")
        if not download:
            raise DatasetNotFoundError(f"{head}; download disabled")
        try:
            path = download_file(spec.archive, cache_dir() / spec.name, [spec.url], [spec.md5],
                                 timeout=60.0, progress=progress)
        except DownloadError as error:
            raise DatasetNotFoundError(f"{head}; {error}; put {spec.archive} in "
                                       f"$TRAIN_DATA_DIR/{spec.name}/") from None
        found = ("python-archive", path)
    return read(found, spec, split)


def files_used(name: str, split: str = "train", root: str | os.PathLike[str] | None = None
               ) -> dict[str, str]:
    """The folder or archive ``load`` reads, for the record (empty when not on disk yet)."""
    spec = spec_of(name)
    found = locate(spec, split, root)[0] if spec else None
    if found is None:
        return {}
    version, path = found
    files = [path] if version.endswith("-archive") else [
        path / f for f in (spec.py_files if version == "python" else spec.bin_files)[split]]
    return {"images": str(files[0].resolve()), "labels": str(files[0].resolve()),
            "sha256": files_sha256(files)}
