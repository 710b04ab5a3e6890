"""Checkpoints: a safe, checksummed, atomically written tensor file (no pickle).

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
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ._io import atomic_write  # also importable from here, its former home
from .dtype import from_numpy, to_np
from .parameter import Parameter
from .tensor import Tensor

MAGIC = b"TWMCKPT1"
_JSON_TYPES = (bool, int, float, str, type(None), list, dict)


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used (corrupt, truncated, mismatched)."""


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
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"checkpoint {path} is a directory; give the path of a .ckpt file")
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {path} does not exist")
    raw = path.read_bytes()
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


def _named_tensors(save_obj: Any) -> dict[str, np.ndarray]:
    if hasattr(save_obj, "parameters_and_names"):  # a Cell (duck-typed: no nn import here)
        pairs = [(p.name or n, p) for n, p in save_obj.parameters_and_names()]
    elif isinstance(save_obj, Mapping):
        pairs = list(save_obj.items())
    elif isinstance(save_obj, list | tuple):
        try:
            pairs = [(item["name"], item["data"]) for item in save_obj]
        except (TypeError, KeyError):
            raise TypeError("save_checkpoint: a list must hold {'name': ..., 'data': ...} "
                            "dicts") from None
    else:
        raise TypeError(f"save_checkpoint: cannot save a {type(save_obj).__name__}; pass a Cell, "
                        "a dict of tensors or a list of {'name', 'data'} dicts")
    arrays: dict[str, np.ndarray] = {}
    for name, value in pairs:
        if name in arrays:
            raise ValueError(f"save_checkpoint: two parameters are named {name!r}")
        arrays[name] = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
    return arrays


def save_checkpoint(save_obj: Any, ckpt_file_name: str | os.PathLike,
                    append_dict: Mapping[str, Any] | None = None, **_unused: Any) -> None:
    """Save a Cell's parameters (or a dict/list of tensors) plus ``append_dict`` values."""
    arrays = _named_tensors(save_obj)
    metadata: dict[str, Any] = {}
    for key, value in (append_dict or {}).items():
        if key in arrays:
            raise ValueError(f"save_checkpoint: append_dict key {key!r} is also a parameter name; "
                             "rename the appended entry")
        if isinstance(value, Tensor | np.ndarray):
            arrays[key] = value.asnumpy() if isinstance(value, Tensor) else value
        elif isinstance(value, _JSON_TYPES):
            metadata[key] = value
        else:
            raise TypeError(f"save_checkpoint: append_dict[{key!r}] is a {type(value).__name__}; "
                            "use numbers, strings, lists, dicts or tensors")
    write_arrays(ckpt_file_name, arrays, metadata)


def load_checkpoint(ckpt_file_name: str | os.PathLike, net: Any = None,
                    strict_load: bool = False, filter_prefix: Any = None,
                    choice_func: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """Read a checkpoint into ``{name: Parameter}`` (plus appended plain values)."""
    arrays, metadata = read_arrays(ckpt_file_name)
    prefixes = (filter_prefix,) if isinstance(filter_prefix, str) else tuple(filter_prefix or ())
    result: dict[str, Any] = {}
    for name, array in arrays.items():
        if prefixes and name.startswith(prefixes):
            continue
        if choice_func is not None and not choice_func(name):
            continue
        result[name] = Parameter(array, name=name)
    result.update(metadata)
    if net is not None:
        load_param_into_net(net, result, strict_load=strict_load)
    return result


def load_param_into_net(net: Any, parameter_dict: Mapping[str, Any],
                        strict_load: bool = False) -> tuple[list[str], list[str]]:
    """Copy values into ``net``'s parameters by name.

    Shape or dtype mismatches raise one error listing all of them. Parameters the
    checkpoint lacks are an error with ``strict_load``, else a warning. Returns
    ``(params_not_loaded, checkpoint_entries_not_used)``.
    """
    params = net.parameters_dict()
    tensors = {k: v for k, v in parameter_dict.items() if isinstance(v, Tensor | np.ndarray)}
    mismatched = []
    for name, param in params.items():
        if name in tensors:
            value = tensors[name]
            array = value.asnumpy() if isinstance(value, Tensor) else value
            if tuple(array.shape) != param.shape:
                mismatched.append(f"{name}: checkpoint {tuple(array.shape)} vs network {param.shape}")
            elif array.dtype != param.asnumpy().dtype:
                mismatched.append(f"{name}: checkpoint {array.dtype} vs network "
                                  f"{param.asnumpy().dtype}")
    if mismatched:
        raise CheckpointError("checkpoint does not fit the network: " + "; ".join(mismatched))
    missing = [name for name in params if name not in tensors]
    unused = [name for name in tensors if name not in params]
    if missing and strict_load:
        raise CheckpointError(f"checkpoint lacks {len(missing)} parameter(s) of the network: "
                              f"{', '.join(missing)}")
    if missing:
        warnings.warn(f"load_param_into_net: not in the checkpoint, left unchanged: "
                      f"{', '.join(missing)}", stacklevel=2)
    for name, param in params.items():
        if name in tensors:
            value = tensors[name]
            param.set_data(np.array(value.asnumpy() if isinstance(value, Tensor) else value))
    return missing, unused
