"""safetensors files, through the ``safetensors`` library (``pip install twinmode[interop]``).

Tensors are stored under our parameter names (``conv1.weight``, ``bn.moving_mean``), so a
file written here loads into a PyTorch module whose names match (README: "Weights in and
out"). Plain ``append_dict`` values (numbers, strings, lists, dicts) go to the file's
metadata as one JSON text under ``twinmode.append_dict``; other programs ignore it.
The library parses the header and checks the offsets itself; bfloat16 tensors are widened to
float32, exactly (twinmode has no bfloat16 tensors yet). ``crc_check`` stores MindSpore's
``crc_num`` metadata (the CRC32 of each name and its tensor's bytes, names sorted), which
loading checks whenever it is there.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import CheckpointError, widen_bfloat16

APPEND_KEY = "twinmode.append_dict"


def _library():
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise ImportError("the safetensors format needs the safetensors package: "
                          "pip install 'twinmode[interop]' (or pip install safetensors)") from None
    return safetensors


def _crc(data: Mapping[str, Any]) -> str:
    """MindSpore's ``crc_num``: the CRC32 of each name and its tensor's bytes, names sorted."""
    checksum = 0
    for name in sorted(data):
        checksum = zlib.crc32(data[name], zlib.crc32(name.encode("utf-8"), checksum))
    return str(checksum)


def encode(arrays: Mapping[str, np.ndarray], plain: Mapping[str, Any] | None = None,
           crc: bool = False) -> bytes:
    """The bytes of a safetensors file with ``arrays`` and the JSON values ``plain``."""
    lib = _library()
    metadata = {"format": "np"}
    tensors = {name: np.asarray(a, order="C") for name, a in arrays.items()}
    if crc:
        metadata["crc_num"] = _crc({name: a.tobytes() for name, a in tensors.items()})
    if plain:
        try:
            metadata[APPEND_KEY] = json.dumps(dict(plain), allow_nan=True)
        except TypeError as error:
            raise TypeError(f"checkpoint metadata must be JSON data: {error}") from None
    try:
        return lib.numpy.save(tensors, metadata=metadata)
    except Exception as error:  # the library's own error types vary by version
        raise TypeError(f"safetensors cannot store these tensors: {_one_line(error)}") from None


_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "<i1", "I16": "<i2", "I32": "<i4",
           "I64": "<i8", "U8": "<u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "|b1",
           "BF16": "<u2"}


def decode(raw: bytes, path: Path) -> dict[str, Any]:
    """``{name: array}`` in file order, then the appended plain values. The library checks
    the header and the offsets (``safetensors.deserialize``); the dtypes are mapped here, so
    that bfloat16 needs no ``ml_dtypes``."""
    lib = _library()
    try:
        tensors = dict(lib.deserialize(raw))
        header = json.loads(bytes(raw[8:8 + int.from_bytes(raw[:8], "little")]))
    except Exception as error:  # SafetensorError, ValueError, TypeError: all mean a bad file
        raise CheckpointError(f"{path} is not a valid safetensors file: {_one_line(error)}") from None
    arrays: dict[str, np.ndarray] = {}
    for _, name in sorted((header[name]["data_offsets"][0], name) for name in tensors):
        spec = tensors[name]
        if spec["dtype"] not in _DTYPES:
            raise CheckpointError(f"{path}: tensor {name!r} has dtype {spec['dtype']}, which twinmode "
                                  f"does not load ({', '.join(_DTYPES)})")
        array = np.frombuffer(spec["data"], _DTYPES[spec["dtype"]]).reshape(spec["shape"])
        arrays[name] = widen_bfloat16(array) if spec["dtype"] == "BF16" else array.astype(
            array.dtype.newbyteorder("="))
    entries: dict[str, Any] = dict(arrays)
    metadata = header.get("__metadata__") or {}
    if "crc_num" in metadata and metadata["crc_num"] != _crc(
            {name: spec["data"] for name, spec in tensors.items()}):
        raise CheckpointError(f"{path} is corrupt: its crc_num does not match its contents")
    if APPEND_KEY in metadata:
        try:
            plain = json.loads(metadata[APPEND_KEY])
        except ValueError:
            plain = None
        if not isinstance(plain, dict):
            raise CheckpointError(f"{path} has corrupt {APPEND_KEY} metadata")
        entries.update({k: v for k, v in plain.items() if k not in entries})
    return entries


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
