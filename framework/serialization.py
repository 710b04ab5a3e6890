"""Checkpoints as MindSpore's API: ``save_checkpoint``, ``load_checkpoint``, ``load_param_into_net``.

Three file formats (framework/checkpoint_formats, one module each):
- ``format=None`` / ``"twinmode"`` (the default): our safe, checksummed ``TWMCKPT1`` file,
  written atomically; the trainer's training state uses it too (``write_arrays``/``read_arrays``).
- ``"mindspore"`` (or MindSpore's own name, ``"ckpt"``): MindSpore's protobuf ``.ckpt``, which
  MindSpore loads (``crc_check=True`` adds its CRC32).
- ``"safetensors"``: the safetensors format (needs the ``interop`` extra).

``load_checkpoint`` tells the three apart by their first bytes, whatever the file's name.
Parameter names are MindSpore's (a Cell names its sub-cells' parameters after their attribute
paths, ``features.1.moving_mean``: :mod:`framework.nn.cell`), so the names in any of the
formats are the ones MindSpore writes and reads. ``load_param_into_net`` also takes a value
under the name files written before that rule used (``checkpoint_formats.former_name``:
``bn.mean``), so older checkpoints of ours still load.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import dtype as mstype
from ._io import atomic_write  # also importable from here, its former home
from .checkpoint_formats import (
    MINDSPORE,
    SAFETENSORS,
    TWINMODE,
    CheckpointError,
    former_name,
    mindspore_ckpt,
    out_of_memory,
    read_file,
    safetensors_io,
    sniff,
    twinmode,
)
from .checkpoint_formats.twinmode import MAGIC, read_arrays, write_arrays
from .common.tensor import Tensor
from .dtype import default_for_python
from .parameter import Parameter

__all__ = ["MAGIC", "CheckpointError", "atomic_write", "load_checkpoint", "load_param_into_net",
           "read_arrays", "save_checkpoint", "write_arrays"]

_FORMATS = {None: TWINMODE, "twinmode": TWINMODE, "mindspore": MINDSPORE, "ckpt": MINDSPORE,
            "safetensors": SAFETENSORS}
_JSON_TYPES = (bool, int, float, str, type(None), list, dict)


def _format(value: str | None, api: str) -> str:
    if value not in _FORMATS:
        names = ", ".join(repr(k) for k in _FORMATS if k)
        raise ValueError(f"{api}: unknown format {value!r}; use one of {names}")
    return _FORMATS[value]


def _named_tensors(save_obj: Any, choice_func: Callable[[str], bool] | None,
                   fmt: str) -> dict[str, np.ndarray]:
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
        if choice_func is not None and not choice_func(name):
            continue
        if name in arrays:
            raise ValueError(f"save_checkpoint: two parameters are named {name!r}")
        arrays[name] = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
    return arrays


def _appended(append_dict: Mapping[str, Any] | None, arrays: dict[str, np.ndarray],
              fmt: str) -> dict[str, Any]:
    """Adds ``append_dict``'s tensors to ``arrays``; returns its other values (for the
    MindSpore format: its strings, its numbers becoming tensors as MindSpore's do)."""
    plain: dict[str, Any] = {}
    for key, value in (append_dict or {}).items():
        if key in arrays:
            raise ValueError(f"save_checkpoint: append_dict key {key!r} is also a parameter name; "
                             "rename the appended entry")
        if isinstance(value, Tensor | np.ndarray):
            arrays[key] = value.asnumpy() if isinstance(value, Tensor) else value
        elif fmt == MINDSPORE and isinstance(value, str):
            plain[key] = value
        elif fmt == MINDSPORE and isinstance(value, bool | int | float | list):
            try:
                arrays[key] = np.asarray(value, default_for_python(value).np)
            except (TypeError, ValueError):
                raise TypeError(f"save_checkpoint: append_dict[{key!r}] is not a list of numbers; "
                                "the MindSpore format stores strings, numbers and tensors") from None
        elif fmt != MINDSPORE and isinstance(value, _JSON_TYPES):
            plain[key] = value
        else:
            kinds = ("strings, numbers and tensors" if fmt == MINDSPORE
                     else "numbers, strings, lists, dicts or tensors")
            raise TypeError(f"save_checkpoint: append_dict[{key!r}] is a {type(value).__name__}; "
                            f"use {kinds}")
    return plain


def save_checkpoint(save_obj: Any, ckpt_file_name: str | os.PathLike, integrated_save: bool = True,
                    async_save: bool = False, append_dict: Mapping[str, Any] | None = None,
                    enc_key: bytes | None = None, enc_mode: str = "AES-GCM",
                    choice_func: Callable[[str], bool] | None = None, crc_check: bool = False,
                    format: str | None = None, **_unused: Any) -> None:
    """Save a Cell's parameters (or a dict/list of tensors) plus ``append_dict`` values.

    MindSpore's signature; ``format`` picks the file format (module docstring), ``choice_func``
    the parameters by name. The write is synchronous and atomic whatever ``async_save``.
    """
    if enc_key is not None:
        raise ValueError("save_checkpoint: encrypted checkpoints (enc_key) are not supported")
    fmt = _format(format, "save_checkpoint")
    arrays = _named_tensors(save_obj, choice_func, fmt)
    plain = _appended(append_dict, arrays, fmt)
    if fmt == TWINMODE:
        write_arrays(ckpt_file_name, arrays, plain)
        return
    if fmt == SAFETENSORS:
        atomic_write(ckpt_file_name, safetensors_io.encode(arrays, plain, crc=crc_check))
        return
    try:
        chunks = mindspore_ckpt.encode({**arrays, **plain}, crc=crc_check)
    except TypeError as error:
        raise TypeError(f"save_checkpoint: {error}") from None
    atomic_write(ckpt_file_name, chunks)


def _prefixes(value: Any, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(p, str) for p in items):
        raise TypeError(f"load_checkpoint: {name} must be a str or a list/tuple of str, got {value!r}")
    if not items or not all(items):
        raise ValueError(f"load_checkpoint: {name} must not be empty or hold an empty string")
    return tuple(items)


def _read_entries(path: str | os.PathLike, expected: str | None) -> dict[str, Any]:
    raw = read_file(path)
    kind = sniff(raw[:64], len(raw))
    if kind is None:
        raise CheckpointError(f"{path} is not a twinmode checkpoint, a MindSpore .ckpt or a "
                              "safetensors file (unrecognised first bytes)")
    if expected is not None and kind != expected and not (expected == "ckpt" and kind != SAFETENSORS):
        raise CheckpointError(f"{path} is a {kind} file, not {expected}: leave format out to "
                              "read whichever it is")
    try:
        if kind == MINDSPORE:
            return mindspore_ckpt.decode(raw, path)
        if kind == SAFETENSORS:
            return safetensors_io.decode(raw, path)
        arrays, metadata = twinmode.decode(raw, path)
    except MemoryError:  # the arrays besides the file's bytes
        raise out_of_memory(Path(path), len(raw)) from None
    return {**arrays, **{k: v for k, v in metadata.items() if k not in arrays}}


def load_checkpoint(ckpt_file_name: str | os.PathLike, net: Any = None, strict_load: bool = False,
                    filter_prefix: Any = None, choice_func: Callable[[str], bool] | None = None,
                    specify_prefix: Any = None, *, dec_key: bytes | None = None,
                    format: str | None = None, **_unused: Any) -> dict[str, Any]:
    """Read a checkpoint (any of the three formats, told apart by content) into
    ``{name: Parameter}``, plus appended plain values (numbers, strings ...).

    As MindSpore: ``specify_prefix`` keeps only names starting with one of its prefixes,
    ``filter_prefix`` drops those starting with one of its; ``choice_func(name)`` selects
    when neither is given. With ``net``, the values are loaded into it
    (``load_param_into_net(net, ..., strict_load)``). ``format`` (``"ckpt"``,
    ``"mindspore"``, ``"twinmode"`` or ``"safetensors"``) only asserts what the file is.
    """
    if dec_key is not None:
        raise ValueError("load_checkpoint: encrypted checkpoints (dec_key) are not supported")
    expected = format if format in ("ckpt", None) else _format(format, "load_checkpoint")
    keep, drop = _prefixes(specify_prefix, "specify_prefix"), _prefixes(filter_prefix, "filter_prefix")
    entries = _read_entries(ckpt_file_name, expected)
    result: dict[str, Any] = {}
    for name, value in entries.items():
        if (keep and not name.startswith(keep)) or (drop and name.startswith(drop)):
            continue
        if not keep and not drop and choice_func is not None and not choice_func(name):
            continue
        result[name] = Parameter(value, name=name) if isinstance(value, np.ndarray) else value
    if entries and not result:
        raise CheckpointError(f"load_checkpoint: no entry of {ckpt_file_name} passes "
                              "specify_prefix / filter_prefix / choice_func")
    if net is not None:
        load_param_into_net(net, result, strict_load=strict_load)
    return result


def _same_family(a: np.dtype, b: np.dtype) -> bool:
    """Dtypes MindSpore converts between when ``strict_load`` is off: float to float, and
    signed integer to signed integer."""
    return mstype.kind(a) == mstype.kind(b) and mstype.kind(a) in "fi"


def _match(params: Mapping[str, Any], tensors: Mapping[str, Any], strict: bool,
           aliases: Mapping[str, str]) -> dict[str, str]:
    """``{network name: checkpoint name}``: equal names, or the parameter's MindSpore name
    (``aliases``: ``bn.moving_mean`` was ``bn.mean`` in our older files); without ``strict``, as MindSpore, a
    network name also matches ``prefix + name`` for one prefix ending in ``.`` (a checkpoint
    of a network that held this one)."""
    def names(name: str) -> tuple[str, ...]:
        return (name, aliases[name]) if name in aliases else (name,)

    found = {}
    for name in params:
        key = next((key for key in names(name) if key in tensors), None)
        if key is not None:
            found[name] = key
    missing = [name for name in params if name not in found]
    if strict or not missing:
        return found
    prefix = None
    for name in missing:
        prefix = next((key[:-len(alias)] for key in tensors for alias in names(name)
                       if key.endswith("." + alias)), None)
        if prefix is not None:
            break
    else:
        return found
    for name in missing:
        key = next((prefix + alias for alias in names(name) if prefix + alias in tensors), None)
        if key is not None:
            found[name] = key
    warnings.warn(f"load_param_into_net: loading checkpoint names {prefix!r} + the network's "
                  "names", stacklevel=3)
    return found


def load_param_into_net(net: Any, parameter_dict: Mapping[str, Any],
                        strict_load: bool = False) -> tuple[list[str], list[str]]:
    """Copy values into ``net``'s parameters by name; returns MindSpore's ``(param_not_load,
    ckpt_not_load)``: the network's parameters left unchanged, and the dict's entries (plain
    values included) that went nowhere.

    A parameter takes the value under its name or its former name (``bn.mean`` for
    ``bn.moving_mean``, in our files written before parameters were named after their
    paths). As MindSpore, without ``strict_load`` a float (or signed integer) value of another
    width is converted to the parameter's dtype with a warning, and names may match under one
    prefix (``_match``). Other dtype or shape mismatches raise one error listing all of them,
    before anything is loaded. Unlike MindSpore (which only warns), parameters the dict lacks
    are an error with ``strict_load``; without it they are a warning.
    """
    params = net.parameters_dict()
    tensors = {k: v for k, v in parameter_dict.items() if isinstance(v, Tensor | np.ndarray)}
    aliases = {p.name: former_name(p.name, p._given_name) for _, p in net.parameters_and_names()
               if p.name and former_name(p.name, p._given_name) != p.name}
    found = _match(params, tensors, bool(strict_load), aliases)
    mismatched, converted, values = [], [], {}
    for name, key in found.items():
        value = tensors[key]
        array = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
        want = params[name].asnumpy().dtype
        if tuple(array.shape) != params[name].shape:
            mismatched.append(f"{name}: checkpoint {tuple(array.shape)} vs network {params[name].shape}")
        elif array.dtype != want and (strict_load or not _same_family(array.dtype, want)):
            mismatched.append(f"{name}: checkpoint {array.dtype} vs network {want}")
        else:
            if array.dtype != want:
                converted.append(f"{name} ({array.dtype} to {want})")
            values[name] = np.array(array, dtype=want)
    if mismatched:
        raise CheckpointError("checkpoint does not fit the network: " + "; ".join(mismatched))
    missing = [name for name in params if name not in found]
    if missing and strict_load:
        raise CheckpointError(f"checkpoint lacks {len(missing)} parameter(s) of the network: "
                              f"{', '.join(missing)}")
    if missing:
        warnings.warn(f"load_param_into_net: not in the checkpoint, left unchanged: "
                      f"{', '.join(missing)}", stacklevel=2)
    if converted:
        warnings.warn(f"load_param_into_net: converted {', '.join(converted)}", stacklevel=2)
    for name, array in values.items():
        params[name].set_data(array)
    used = set(found.values())
    return missing, [key for key in parameter_dict if key not in used]
