"""Datasets for twinmode: IDX files, named MNIST-family datasets, transforms, batching.

    images, labels = datasets.load("fashion-mnist", split="train")   # uint8 N x 28 x 28, int32
    images, labels = datasets.load("cifar10", split="test")          # uint8 N x 32 x 32 x 3
    loader = datasets.make_loader("fashion-mnist", batch_size=32, transforms="lenet")
    for x, y in loader:   # x float32 32 x 1 x 32 x 32, y int32 (32,); one epoch per loop
        ...

See :mod:`datasets.sources` for where files are looked for and downloaded, :mod:`datasets.cifar`
for the CIFAR layouts, :mod:`datasets.synthetic` for generated data of any shape.
"""

from .catalog import files_used, load, names
from .cifar import CifarFormatError
from .download import checksum_matches, download_file, md5_of_file
from .errors import (
    BatchConfigError,
    ChecksumError,
    DatasetError,
    DatasetNotFoundError,
    DownloadError,
    IdxFormatError,
    TransformConfigError,
)
from .idx import MAGIC_IMAGES, MAGIC_LABELS, read_idx, write_idx
from .loader import BatchIterator, make_loader
from .sources import DatasetSpec, cache_dir, load_pair, locate, register, search_paths
from .synthetic import make_synthetic
from .transforms import (
    HWC2CHW,
    Compose,
    Normalize,
    Rescale,
    Resize,
    TypeCast,
    build_transforms,
    lenet_transforms,
)

__all__ = [
    "HWC2CHW",
    "MAGIC_IMAGES",
    "MAGIC_LABELS",
    "BatchConfigError",
    "BatchIterator",
    "ChecksumError",
    "CifarFormatError",
    "Compose",
    "DatasetError",
    "DatasetNotFoundError",
    "DatasetSpec",
    "DownloadError",
    "IdxFormatError",
    "Normalize",
    "Rescale",
    "Resize",
    "TransformConfigError",
    "TypeCast",
    "build_transforms",
    "cache_dir",
    "files_used",
    "checksum_matches",
    "download_file",
    "lenet_transforms",
    "load",
    "load_pair",
    "locate",
    "make_loader",
    "make_synthetic",
    "md5_of_file",
    "names",
    "read_idx",
    "register",
    "search_paths",
    "write_idx",
]
