"""Checkpoint file formats, one module each, told apart by their first bytes.

- ``twinmode``: our own safe, checksummed ``TWMCKPT1`` file (the default, and the
  training-state format of the trainer).
- ``mindspore_ckpt``: MindSpore's ``.ckpt`` (protobuf ``Checkpoint`` messages), both ways.
- ``safetensors_io``: the safetensors format, through the ``safetensors`` library
  (the ``interop`` extra).

Every reader returns one ordered ``{name: numpy array | plain value}`` dict and refuses a
bad file with a one-line :class:`CheckpointError` that names the path. Nothing is executed
(no pickle) while reading any of them. ``framework.serialization`` is the public API.

Names: every format holds the parameters' names, which are MindSpore's (named after their
attribute paths, see :mod:`framework.nn.cell`). Files of ours written before that rule named
a parameter created with its own name (BatchNorm's ``Parameter(..., name="mean")``) by that
name (``bn.mean`` for MindSpore's ``bn.moving_mean``): :func:`former_name`.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used (corrupt, truncated, mismatched)."""


TWINMODE, MINDSPORE, SAFETENSORS = "twinmode", "mindspore", "safetensors"
TWINMODE_MAGIC = b"TWMCKPT1"


def former_name(name: str, given: str | None) -> str:
    """The name our files gave the parameter now named ``name`` before parameters were named
    after their attribute paths: the Cell's path, then the name the parameter was created
    with (``given``; ``bn.moving_mean`` created as ``"mean"`` was ``bn.mean``)."""
    if not given or "." not in name or name.endswith("." + given):
        return name
    return f"{name.rsplit('.', 1)[0]}.{given}"


def sniff(head: bytes, size: int) -> str | None:
    """The format of a file that starts with ``head`` (its first 64 bytes or more) and is
    ``size`` bytes long, or None when it is none of ours."""
    if head[:8] == TWINMODE_MAGIC:
        return TWINMODE
    if len(head) >= 9 and head[8:9] == b"{" and 2 <= int.from_bytes(head[:8], "little") <= size - 8:
        return SAFETENSORS  # an 8-byte little-endian JSON header length, then the JSON
    if head[:1] == b"\x0a":  # field 1 (Checkpoint.value), length-delimited ...
        pos = 1
        while pos < len(head) and pos < 11 and head[pos] & 0x80:
            pos += 1  # ... its length (a varint) ...
        if pos + 1 < len(head) and head[pos + 1] == 0x0a:  # ... then Value.tag, field 1
            return MINDSPORE
    return None


def read_file(path: str | os.PathLike) -> bytes:
    """The bytes of a checkpoint file, or a one-line error naming it (a file larger than the
    memory this process may still take is refused by its size, before it is read)."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"checkpoint {path} is a directory; give the path of a .ckpt file")
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {path} does not exist")
    size = path.stat().st_size
    room = available_memory()
    if room is not None and size > room:
        raise CheckpointError(f"checkpoint {path} is {_gib(size)}, more than the {_gib(room)} of memory "
                              "this process can still take; load it on a machine with more memory")
    try:
        return path.read_bytes()
    except MemoryError:  # (Python's says nothing: an empty message)
        raise out_of_memory(path, size) from None


def out_of_memory(path: Path, size: int) -> CheckpointError:
    """The one line of a checkpoint of ``size`` bytes that did not fit in memory."""
    return CheckpointError(f"checkpoint {path} ({_gib(size)}) does not fit in the memory left to this "
                           "process; load it on a machine with more memory")


def _gib(size: int) -> str:
    return f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.1f} MiB"


def available_memory() -> int | None:
    """Bytes this process can still allocate: the system's available memory (Linux's
    ``MemAvailable``) and what the address-space limit (``ulimit -v``) leaves, whichever is
    smaller; None where neither is known."""
    limits = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    limits.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/status") as f:
                used = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
            limits.append(max(soft - used, 0))
    except (ImportError, OSError, ValueError, StopIteration):
        pass
    return min(limits) if limits else None


def widen_bfloat16(array: np.ndarray) -> np.ndarray:
    """bfloat16 data (raw ``uint16`` bits or an ``ml_dtypes`` array) as float32, exactly:
    a bfloat16 is the upper half of a float32 (twinmode has no bfloat16 tensors yet)."""
    warnings.warn("checkpoint: bfloat16 tensors are loaded as float32 (exactly)", stacklevel=3)
    bits = np.asarray(array, order="C").view(np.uint16).astype(np.uint32) << 16
    return bits.view(np.float32).reshape(np.shape(array))
