"""IDX reader/writer: tiny files written byte by byte, raw and gzip, and every kind of damage."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest

from datasets import IdxFormatError, read_idx, write_idx
from datasets.idx import MAGIC_IMAGES, MAGIC_LABELS, encode_idx
from datasets.sources import load_pair

IMAGES = np.arange(3 * 4 * 5, dtype=np.uint8).reshape(3, 4, 5)
LABELS = np.array([7, 0, 9], dtype=np.uint8)


def idx_bytes(array: np.ndarray, magic: int) -> bytes:
    """Independent IDX encoder for uint8 arrays (struct, not datasets.idx)."""
    header = struct.pack(">I", magic) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(np.uint8).tobytes()


def put(path: Path, data: bytes) -> Path:
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


@pytest.mark.parametrize("name", ["images-idx3-ubyte", "images-idx3-ubyte.gz"])
def test_read_images_raw_and_gzip(tmp_path: Path, name: str) -> None:
    path = put(tmp_path / name, idx_bytes(IMAGES, MAGIC_IMAGES))
    array = read_idx(path, MAGIC_IMAGES)
    assert array.dtype == np.uint8 and array.shape == (3, 4, 5)
    np.testing.assert_array_equal(array, IMAGES)
    assert not array.flags.writeable  # a zero-copy view of the file buffer


@pytest.mark.parametrize("name", ["labels-idx1-ubyte", "labels-idx1-ubyte.gz"])
def test_read_labels_raw_and_gzip(tmp_path: Path, name: str) -> None:
    path = put(tmp_path / name, idx_bytes(LABELS, MAGIC_LABELS))
    np.testing.assert_array_equal(read_idx(path, MAGIC_LABELS), LABELS)


def test_magic_numbers_are_the_mnist_ones() -> None:
    assert encode_idx(LABELS)[:4] == b"\x00\x00\x08\x01" == struct.pack(">I", 2049)
    assert encode_idx(IMAGES)[:4] == b"\x00\x00\x08\x03" == struct.pack(">I", 2051)


def test_encode_matches_independent_encoder() -> None:
    assert encode_idx(IMAGES) == idx_bytes(IMAGES, MAGIC_IMAGES)
    assert encode_idx(LABELS) == idx_bytes(LABELS, MAGIC_LABELS)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
def test_write_read_roundtrip_all_types(tmp_path: Path, dtype: type) -> None:
    array = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    for name in ("a.idx", "a.idx.gz"):
        back = read_idx(write_idx(tmp_path / name, array))
        assert back.dtype == np.dtype(dtype) and back.dtype.isnative
        np.testing.assert_array_equal(back, array)
    assert (tmp_path / "a.idx.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.idx", "a.idx.gz"]  # no temp files


def test_truncated_gzip(tmp_path: Path) -> None:
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(idx_bytes(IMAGES, MAGIC_IMAGES))[:-12])
    with pytest.raises(IdxFormatError, match=r"train-images-idx3-ubyte\.gz: truncated or corrupt"):
        read_idx(path, MAGIC_IMAGES)


def test_corrupt_gzip_body(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(idx_bytes(IMAGES, MAGIC_IMAGES)))
    data[12:20] = b"\xff" * 8
    path = tmp_path / "x.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(IdxFormatError, match=r"x\.gz: truncated or corrupt gzip"):
        read_idx(path)


def test_gz_name_but_not_gzip(tmp_path: Path) -> None:
    path = tmp_path / "labels.gz"
    path.write_bytes(idx_bytes(LABELS, MAGIC_LABELS))
    with pytest.raises(IdxFormatError, match=r"labels\.gz: not a gzip file"):
        read_idx(path)


def test_wrong_magic_labels_given_as_images(tmp_path: Path) -> None:
    path = put(tmp_path / "imgs.gz", idx_bytes(LABELS, MAGIC_LABELS))
    with pytest.raises(IdxFormatError, match=r"imgs\.gz: wrong magic number 2049 .*expected 2051"):
        read_idx(path, MAGIC_IMAGES)


def test_not_idx_at_all(tmp_path: Path) -> None:
    path = put(tmp_path / "junk", b"PK\x03\x04 this is a zip file")
    with pytest.raises(IdxFormatError, match="junk: not an IDX file"):
        read_idx(path)
    put(path, b"\x00\x00")
    with pytest.raises(IdxFormatError, match="junk: file too short"):
        read_idx(path)
    put(path, b"\x00\x00\x08\x03\x00\x00\x00\x01")
    with pytest.raises(IdxFormatError, match="junk: truncated header"):
        read_idx(path)


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_payload_shorter_than_header(tmp_path: Path, suffix: str) -> None:
    path = put(tmp_path / f"imgs{suffix}", idx_bytes(IMAGES, MAGIC_IMAGES)[:-7])
    with pytest.raises(IdxFormatError, match=r"payload is shorter than the header says \(53 bytes"):
        read_idx(path, MAGIC_IMAGES)


def test_payload_longer_than_header(tmp_path: Path) -> None:
    path = put(tmp_path / "lbl", idx_bytes(LABELS, MAGIC_LABELS) + b"\x00")
    with pytest.raises(IdxFormatError, match="lbl: payload is longer"):
        read_idx(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(IdxFormatError, match="nope: cannot read file"):
        read_idx(tmp_path / "nope")


def test_image_and_label_counts_disagree(tmp_path: Path) -> None:
    images = put(tmp_path / "i.gz", idx_bytes(IMAGES, MAGIC_IMAGES))
    labels = put(tmp_path / "l.gz", idx_bytes(LABELS[:2], MAGIC_LABELS))
    with pytest.raises(IdxFormatError, match=r"i\.gz has 3 images but .*l\.gz has 2 labels"):
        load_pair(images, labels)


def test_label_out_of_range(tmp_path: Path) -> None:
    images = put(tmp_path / "i", idx_bytes(IMAGES, MAGIC_IMAGES))
    labels = put(tmp_path / "l", idx_bytes(np.array([1, 12, 3]), MAGIC_LABELS))
    with pytest.raises(IdxFormatError, match="l: label 12 out of range for 10 classes"):
        load_pair(images, labels, num_classes=10)


def test_load_pair_types(tmp_path: Path) -> None:
    images = put(tmp_path / "i.gz", idx_bytes(IMAGES, MAGIC_IMAGES))
    labels = put(tmp_path / "l", idx_bytes(LABELS, MAGIC_LABELS))
    x, y = load_pair(images, labels, num_classes=10)
    assert x.dtype == np.uint8 and y.dtype == np.int32
    np.testing.assert_array_equal(y, [7, 0, 9])


def test_errors_are_one_line(tmp_path: Path) -> None:
    path = put(tmp_path / "t.gz", b"")
    path.write_bytes(gzip.compress(idx_bytes(IMAGES, MAGIC_IMAGES))[:30])
    with pytest.raises(IdxFormatError) as info:
        read_idx(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
