"""twinmode's own checkpoint file: safe, checksummed, atomically written (no pickle).

Layout: 8-byte magic ``TWMCKPT1``, 8-byte little-endian header length, a UTF-8 JSON
header (tensor names, dtypes, shapes, offsets, user metadata), the raw little-endian
tensor data, and a 32-byte SHA-256 of everything before it (header included). A file
that was cut short, edited or is not a checkpoint is refused with a one-line reason;
writes go to a temporary file in the same folder that replaces the target only once
complete.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._io import atomic_write
from ..dtype import from_numpy, to_np
from . import TWINMODE_MAGIC as MAGIC
from . import CheckpointError, read_file


def write_arrays(path: str | os.PathLike, arrays: Mapping[str, np.ndarray],
                 metadata: Mapping[str, Any] | None = None) -> None:
    """Save named arrays plus JSON metadata as one checkpoint file."""
    entries, blobs, offset = [], [], 0
    for name, array in arrays.items():
        array = np.asarray(array, order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
        from_numpy(array.dtype)  # supported dtypes only
        blob = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        entries.append({"name": name, "dtype": array.dtype.name, "shape": list(array.shape),
                        "offset": offset, "nbytes": len(blob)})
        blobs.append(blob)
        offset += len(blob)
    header = {"format": 1, "tensors": entries, "metadata": dict(metadata or {}),
              "data_bytes": offset}
    try:
        head = json.dumps(header, allow_nan=True).encode()
    except TypeError as error:
        raise TypeError(f"checkpoint metadata must be JSON data: {error}") from None
    chunks = [MAGIC, len(head).to_bytes(8, "little"), head, *blobs]
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    atomic_write(path, [*chunks, digest.digest()])


def read_arrays(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Load ``(arrays, metadata)`` written by ``write_arrays``, verifying size and checksum."""
    return decode(read_file(path), Path(path))


def decode(raw: bytes, path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """``(arrays, metadata)`` from the bytes ``raw`` of the file ``path``."""
    if len(raw) < 16 or raw[:8] != MAGIC:
        raise CheckpointError(f"{path} is not a twinmode checkpoint (bad magic bytes)")
    head_len = int.from_bytes(raw[8:16], "little")
    if 16 + head_len + 32 > len(raw):
        raise CheckpointError(f"{path} is truncated: the header needs {head_len} bytes, "
                              f"the file has {len(raw) - 16}")
    try:
        header = json.loads(raw[16:16 + head_len])
        entries, expected = header["tensors"], int(header["data_bytes"])
    except (ValueError, KeyError, TypeError):
        raise CheckpointError(f"{path} has a corrupt header") from None
    body = memoryview(raw)[:-32]
    data = body[16 + head_len:]
    if len(data) != expected:
        raise CheckpointError(f"{path} is truncated or padded: expected {expected} bytes of "
                              f"tensor data, found {len(data)}")
    if hashlib.sha256(body).digest() != raw[-32:]:
        raise CheckpointError(f"{path} is corrupt: the checksum does not match its contents")
    arrays = {}
    for e in entries:
        dtype = np.dtype(to_np(e["dtype"])).newbyteorder("<")
        chunk = data[e["offset"]: e["offset"] + e["nbytes"]]
        arrays[e["name"]] = np.frombuffer(chunk, dtype=dtype).reshape(e["shape"]).astype(
            dtype.newbyteorder("="))
    return arrays, header.get("metadata", {})
