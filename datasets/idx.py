"""Reader and writer for the IDX format of the MNIST family (raw or gzip-compressed).

Layout: a 4-byte magic number ``0x00 0x00 <type code> <ndim>``, then ``ndim`` big-endian
uint32 dimensions, then the payload in big-endian order.  MNIST labels have magic 2049
(uint8, 1-D) and images 2051 (uint8, 3-D).

The whole file is read (and decompressed) once and the array is a zero-copy
``np.frombuffer`` view of that buffer, so it is read-only.  Every way a file can be broken
raises :class:`IdxFormatError` with a one-line message that names the file.
"""

from __future__ import annotations

import gzip
import os
import tempfile
import zlib
from pathlib import Path

import numpy as np

from .errors import IdxFormatError

MAGIC_LABELS = 2049  # 0x00000801: uint8, 1 dimension
MAGIC_IMAGES = 2051  # 0x00000803: uint8, 3 dimensions

_GZIP_MAGIC = b"\x1f\x8b"
_CODE_TO_DTYPE: dict[int, np.dtype] = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
_KIND_TO_CODE = {(dt.kind, dt.itemsize): code for code, dt in _CODE_TO_DTYPE.items()}


def _read_bytes(path: Path) -> bytes:
    """Return the file's content, decompressed when it is a gzip stream (sniffed, not by name)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IdxFormatError(f"{path}: cannot read file ({exc.strerror or exc})") from exc
    if data[:2] == _GZIP_MAGIC:
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise IdxFormatError(f"{path}: truncated or corrupt gzip stream ({exc})") from exc
    if path.suffix == ".gz":
        raise IdxFormatError(f"{path}: not a gzip file (does not start with 1f 8b)")
    return data


def parse_idx(data: bytes, source: str | Path = "<bytes>", magic: int | None = None) -> np.ndarray:
    """Parse an uncompressed IDX buffer into a NumPy view; ``magic`` is checked when given."""
    if len(data) < 4:
        raise IdxFormatError(f"{source}: file too short for an IDX header ({len(data)} bytes)")
    found = int.from_bytes(data[:4], "big")
    if magic is not None and found != magic:
        raise IdxFormatError(
            f"{source}: wrong magic number {found} (0x{found:08x}), expected {magic} "
            f"(0x{magic:08x}); is this the right file?"
        )
    code, ndim = data[2], data[3]
    if data[:2] != b"\x00\x00" or code not in _CODE_TO_DTYPE or ndim == 0:
        raise IdxFormatError(f"{source}: not an IDX file (magic number 0x{found:08x})")
    header_len = 4 + 4 * ndim
    if len(data) < header_len:
        raise IdxFormatError(f"{source}: truncated header ({len(data)} of {header_len} bytes)")
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    dtype = _CODE_TO_DTYPE[code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    payload = len(data) - header_len
    if payload != expected:
        what = "shorter" if payload < expected else "longer"
        raise IdxFormatError(
            f"{source}: payload is {what} than the header says ({payload} bytes, expected "
            f"{expected} for shape {shape}); the file is truncated or corrupt"
        )
    array = np.frombuffer(data, dtype=dtype, offset=header_len).reshape(shape)
    if dtype.byteorder == ">":  # multi-byte types: convert once to native order
        array = array.astype(dtype.newbyteorder("="))
    return array


def read_idx(path: str | os.PathLike[str], magic: int | None = None) -> np.ndarray:
    """Read a raw or ``.gz`` IDX file; raise :class:`IdxFormatError` naming the file if broken."""
    path = Path(path)
    return parse_idx(_read_bytes(path), path, magic)


def encode_idx(array: np.ndarray) -> bytes:
    """Serialise ``array`` (uint8/int8/int16/int32/float32/float64) to uncompressed IDX bytes."""
    array = np.asarray(array)
    code = _KIND_TO_CODE.get((array.dtype.kind, array.dtype.itemsize))
    if code is None or array.ndim == 0 or array.ndim > 255:
        raise ValueError(f"cannot store a {array.ndim}-D {array.dtype} array in IDX")
    header = bytes([0, 0, code, array.ndim]) + b"".join(
        int(n).to_bytes(4, "big") for n in array.shape
    )
    return header + np.ascontiguousarray(array, dtype=_CODE_TO_DTYPE[code]).tobytes()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_idx(
    path: str | os.PathLike[str], array: np.ndarray, compress: bool | None = None
) -> Path:
    """Write ``array`` as IDX (gzip-compressed when ``compress`` or the name ends in ``.gz``)."""
    path = Path(path)
    data = encode_idx(array)
    if compress if compress is not None else path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    atomic_write_bytes(path, data)
    return path
