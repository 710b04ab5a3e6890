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
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._io import atomic_write
from ..dtype import from_numpy, to_np
from . import TWINMODE_MAGIC as MAGIC
from . import CheckpointError, out_of_memory, read_file


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
    raw = read_file(path)
    try:
        return decode(raw, Path(path))
    except MemoryError:  # the arrays besides the file's bytes
        raise out_of_memory(Path(path), len(raw)) from None


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
    except (ValueError, KeyError, TypeError, RecursionError):  # (JSON nested past Python's stack)
        raise CheckpointError(f"{path} has a corrupt header") from None
    body = memoryview(raw)[:-32]
    data = body[16 + head_len:]
    if len(data) != expected:
        raise CheckpointError(f"{path} is truncated or padded: expected {expected} bytes of "
                              f"tensor data, found {len(data)}")
    if hashlib.sha256(body).digest() != raw[-32:]:
        raise CheckpointError(f"{path} is corrupt: the checksum does not match its contents")
    arrays = {}
    if not isinstance(entries, list):
        raise CheckpointError(f"{path} has a corrupt header: 'tensors' is not a list")
    for k, e in enumerate(entries):
        name, dtype, shape, start, stop = _entry(e, k, len(data), path)
        try:
            array = np.frombuffer(data[start:stop], dtype=dtype).reshape(shape)
        except ValueError as error:  # sizes whose product NumPy cannot index, even with a 0
            raise CheckpointError(f"{path} has a corrupt header: tensor {name!r} has shape {list(shape)}, "
                                  f"which is not an array ({error})") from None
        arrays[name] = array.astype(dtype.newbyteorder("="))
    metadata = header.get("metadata", {})
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{path} has a corrupt header: 'metadata' is not a mapping")
    return arrays, metadata


def _entry(e: Any, k: int, size: int, path: Path) -> tuple[str, np.dtype, tuple[int, ...], int, int]:
    """``(name, little-endian dtype, shape, start, stop)`` of the header's tensor entry ``k``,
    each checked (a header with a valid digest may still have been written wrong: by hand, by
    another tool), or a one-line error naming the entry."""
    def bad(why: str) -> CheckpointError:
        return CheckpointError(f"{path} has a corrupt header: tensor entry {k} {why}")

    if not isinstance(e, dict):
        raise bad(f"is {type(e).__name__}, not a mapping")
    name, dtype_name, shape, offset, nbytes = (e.get(key) for key in
                                               ("name", "dtype", "shape", "offset", "nbytes"))
    if not isinstance(name, str):
        raise bad(f"has no name (got {name!r:.40})")
    try:
        if not isinstance(dtype_name, str):
            raise TypeError
        dtype = np.dtype(to_np(dtype_name)).newbyteorder("<")
    except (TypeError, ValueError, KeyError):
        raise bad(f"({name!r}) has an unknown dtype {dtype_name!r:.40}") from None
    if (not isinstance(shape, list) or len(shape) > 64  # (NumPy's most)
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)):
        raise bad(f"({name!r}) has a bad shape {shape!r:.60} (a list of at most 64 sizes >= 0)")
    ints = [isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (offset, nbytes)]
    if not all(ints) or offset + nbytes > size:
        raise bad(f"({name!r}) has bytes {offset!r:.20}..+{nbytes!r:.20} outside the {size} bytes of "
                  "tensor data")
    if math.prod(shape) * dtype.itemsize != nbytes:
        raise bad(f"({name!r}) holds {nbytes} bytes, but {dtype_name} {shape} needs "
                  f"{math.prod(shape) * dtype.itemsize}")
    return name, dtype, tuple(shape), offset, offset + nbytes
