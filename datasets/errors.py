"""Exceptions raised by the datasets package (all one-line, all naming the file or place)."""

from __future__ import annotations


class DatasetError(RuntimeError):
    """Base class: a dataset could not be found, downloaded, verified or parsed."""


class DatasetNotFoundError(DatasetError):
    """The dataset files are missing everywhere and could not be downloaded."""


class IdxFormatError(DatasetError):
    """An IDX file is corrupt: bad gzip stream, wrong magic number, short payload, ..."""


class DownloadError(DatasetError):
    """No mirror delivered a file (network errors, HTTP errors, bad checksums)."""


class ChecksumError(DownloadError):
    """A downloaded file does not match its published MD5 checksum."""


class TransformConfigError(ValueError):
    """A transform specification (e.g. from YAML) names an unknown transform or bad arguments."""


class BatchConfigError(DatasetError, ValueError):
    """Batching options that cannot work (no batches, batch_size < 1, bad limit)."""
